package mcpserver

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The collab messages of one sub-agent's life (spawn, a second spawn
// refused by agents.max_threads, send_input, wait, close, resume) have the keys, value types and order of those Codex
// 0.140's own mcp-server sent for the same calls
// (testdata/codex140_collab.jsonl, recorded by dev/codex140collab).
func TestCollabMessagesMatchCodex140(t *testing.T) {
	golden, notSent := readCodex140(t)
	var m eventMapper
	var got []map[string]any
	for _, e := range oneAgentLife() {
		for _, x := range m.messages(e) {
			got = append(got, readBack(t, x))
		}
	}
	var gotTypes, wantTypes []string
	for _, g := range got {
		gotTypes = append(gotTypes, g["type"].(string))
	}
	for _, w := range golden {
		wantTypes = append(wantTypes, w["type"].(string))
	}
	if !slices.Equal(gotTypes, wantTypes) {
		t.Fatalf("message types %v, want Codex 0.140's %v", gotTypes, wantTypes)
	}
	for i := range got {
		if d := shapeDiff(shapeOf(jsonRound(t, got[i])), shapeOf(jsonRound(t, golden[i]))); d != "" {
			t.Errorf("%s: %s\n ours  %s\n codex %s", wantTypes[i], d, mustJSON(got[i]), mustJSON(golden[i]))
		}
	}
	// Codex says a just-spawned agent is pending_init, and a resumed one;
	// a refused spawn's agent is not_found.
	for _, i := range []int{1, 3, 11} {
		if got[i]["status"] != golden[i]["status"] {
			t.Errorf("%s status %v, want %v", wantTypes[i], got[i]["status"], golden[i]["status"])
		}
	}
	// Codex's stream carries neither sub_agent_activity nor the
	// sub-agent's own events; ours follows the root's log only.
	if !slices.Contains(notSent, "sub_agent_activity") {
		t.Errorf("golden file says sub_agent_activity was sent: update the mapper")
	}
}

// oneAgentLife is the root's log for the calls the golden file recorded:
// spawn, a refused spawn, send_input, wait (the agent completes), close,
// resume, with the
// states our workflow records (running at once after a spawn, the last
// report after a resume).
func oneAgentLife() []workflows.Event {
	const root, kid = "ROOT", "AGENT1" // the golden file's names
	st := func(status, message string) workflows.AgentState {
		return workflows.AgentState{ThreadID: kid, Nickname: "Ada", Model: "gpt-5.1-codex", Status: status, Message: message}
	}
	var evs []workflows.Event
	add := func(id, tool string, c workflows.AgentCall, after ...workflows.AgentState) {
		c.Tool, c.SenderThreadID = tool, root
		begin := c
		evs = append(evs, workflows.Event{Type: workflows.EventItemStarted,
			Item: &workflows.Item{ID: id, Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusInProgress, Agent: &begin}})
		end := c
		end.Agents = after
		evs = append(evs, workflows.Event{Type: workflows.EventItemCompleted,
			Item: &workflows.Item{ID: id, Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusCompleted, Agent: &end}})
	}
	add("item_1", "spawn_agent", workflows.AgentCall{Prompt: "investigate alpha", Receivers: []string{kid}}, st(workflows.AgentRunning, ""))
	add("item_r", "spawn_agent", workflows.AgentCall{Prompt: "investigate gamma"})
	refused := evs[len(evs)-1].Item
	refused.Status, refused.Message = workflows.StatusFailed, "agent thread limit reached (agents.max_threads = 1; 1 open)"
	add("item_2", "send_input", workflows.AgentCall{Prompt: "and look at beta", Receivers: []string{kid}}, st(workflows.AgentRunning, ""))
	add("item_3", "wait_agent", workflows.AgentCall{Receivers: []string{kid}}, st(workflows.AgentCompleted, "beta report"))
	add("item_4", "close_agent", workflows.AgentCall{Receivers: []string{kid}}, st(workflows.AgentShutdown, ""))
	add("item_5", "resume_agent", workflows.AgentCall{Receivers: []string{kid}}, st(workflows.AgentCompleted, "beta report"))
	return evs
}

// readCodex140 reads the golden messages and the list of what Codex's
// stream did not carry.
func readCodex140(t *testing.T) ([]map[string]any, []string) {
	t.Helper()
	f, err := os.Open("testdata/codex140_collab.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	var notSent []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if ns, ok := m["_not_sent"].([]any); ok {
			for _, s := range ns {
				notSent = append(notSent, s.(string))
			}
			continue
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, notSent
}

// shapeOf is a JSON value's keys and value types: an object maps each key
// to its value's shape, an array is its first element's shape, a scalar
// its JSON type.
func shapeOf(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = shapeOf(e)
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		return []any{shapeOf(x[0])}
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

// shapeDiff says where two shapes differ (maps keyed by thread id match
// as the test uses the golden file's ids). A role may be present
// where Codex's agent had none (the golden agent was spawned without
// one).
func shapeDiff(got, want any) string {
	g, gok := got.(map[string]any)
	w, wok := want.(map[string]any)
	if gok && wok {
		var diffs []string
		for _, k := range sortedKeys(w) {
			if _, ok := g[k]; !ok {
				diffs = append(diffs, "missing "+k)
			} else if d := shapeDiff(g[k], w[k]); d != "" {
				diffs = append(diffs, k+": "+d)
			}
		}
		for _, k := range sortedKeys(g) {
			if _, ok := w[k]; !ok && !strings.HasSuffix(k, "_role") {
				diffs = append(diffs, "extra "+k)
			}
		}
		return strings.Join(diffs, "; ")
	}
	ga, gaok := got.([]any)
	wa, waok := want.([]any)
	if gaok && waok {
		if len(ga) == 0 || len(wa) == 0 {
			if len(ga) != len(wa) {
				return "array emptiness differs"
			}
			return ""
		}
		return shapeDiff(ga[0], wa[0])
	}
	if mustJSON(got) != mustJSON(want) {
		return mustJSON(got) + " is not " + mustJSON(want)
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readBack is a message as a client reads it.
func readBack(t *testing.T, m msg) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(mustJSON(wireEvent{m})), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonRound(t *testing.T, m map[string]any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(mustJSON(m)), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
