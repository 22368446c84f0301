package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// `interpreter mcp-server` streams a root turn's sub-agent calls as
// Codex's collab messages: for a spawn, a second spawn refused by
// agents.max_threads, and send_input, wait, close and resume of the first, the messages have the types, order, keys and
// value types that Codex 0.140's own mcp-server sent for the same calls
// (frontend/mcpserver/testdata/codex140_collab.jsonl); the spawn names
// the new thread, the wait ends with its report, and, as in Codex's
// stream, no event is the sub-agent's own.
func TestMCPServerStreamsSubAgentEvents(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"look around"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"one too many"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "send_input", Arguments: json.RawMessage(`{"target":"{{output.0.agent_id}}","message":"and look behind"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "wait_agent", Arguments: json.RawMessage(`{"targets":["{{output.0.agent_id}}"],"timeout_ms":120000}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "close_agent", Arguments: json.RawMessage(`{"target":"{{output.0.agent_id}}"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "resume_agent", Arguments: json.RawMessage(`{"id":"{{output.0.agent_id}}"}`)}}},
			{Text: "it said: {{output.3}}"},
		}},
		{Match: "look around", Steps: []fakemodel.Step{{Text: "nothing here"}}},
		{Match: "look behind", Steps: []fakemodel.Step{{Text: "nothing behind"}}},
	}})
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()
	s := e.MCPStdio("-c", "features.multi_agent=true", "-c", "agents.max_threads=1")
	id := s.Request("tools/call", map[string]any{"name": "codex", "arguments": map[string]any{"prompt": "delegate a look", "approval-policy": "never"}})
	resp := s.Response(id)
	if r, _ := resp["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Fatalf("codex call: %v\n%s", resp, s.Diag())
	}
	var collab []map[string]any
	byType := map[string]map[string]any{}
	root := ""
	for _, m := range s.Snapshot() {
		if m["method"] != "codex/event" {
			continue
		}
		params, _ := m["params"].(map[string]any)
		meta, _ := params["_meta"].(map[string]any)
		if th, _ := meta["threadId"].(string); root == "" {
			root = th
		} else if th != root {
			t.Errorf("an event of thread %s on the root's stream (%s): %v", th, root, params["msg"])
		}
		msg, _ := params["msg"].(map[string]any)
		typ, _ := msg["type"].(string)
		if strings.HasPrefix(typ, "collab_") || typ == "sub_agent_activity" {
			collab = append(collab, msg)
			byType[typ] = msg
		}
	}
	golden := readCollabGolden(t)
	var got, want []string
	for _, m := range collab {
		got = append(got, m["type"].(string))
	}
	for _, m := range golden {
		want = append(want, m["type"].(string))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("collab messages %v, want Codex 0.140's %v\n%s", got, want, s.Diag())
	}
	for i := range collab {
		if d := collabShapeDiff(collab[i], golden[i]); d != "" {
			t.Errorf("%s: %s\n ours  %v\n codex %v", want[i], d, collab[i], golden[i])
		}
	}
	spawnEnd, refused := collab[1], collab[3]
	spawned, _ := spawnEnd["new_thread_id"].(string)
	if collab[0]["prompt"] != "look around" || spawned == "" || spawnEnd["new_agent_nickname"] == nil {
		t.Fatalf("spawn messages %v / %v\n%s", collab[0], spawnEnd, s.Diag())
	}
	if m := spawnEnd["model"]; m != "fake-model" {
		t.Errorf("collab_agent_spawn_end model %v, want the one the sub-agent runs (the parent's)", m)
	}
	if st := spawnEnd["status"]; st != "pending_init" {
		t.Errorf("collab_agent_spawn_end status %v, want pending_init as Codex's", st)
	}
	if refused["new_thread_id"] != nil || refused["status"] != "not_found" || refused["prompt"] != "one too many" {
		t.Errorf("refused spawn's end %v, want no thread and not_found as Codex's", refused)
	}
	if st := byType["collab_resume_end"]["status"]; st != "pending_init" {
		t.Errorf("collab_resume_end status %v, want pending_init as Codex's", st)
	}
	if ids, _ := byType["collab_waiting_begin"]["receiver_thread_ids"].([]any); len(ids) != 1 || ids[0] != spawned {
		t.Errorf("collab_waiting_begin %v, want receiver %s", byType["collab_waiting_begin"], spawned)
	}
	st, _ := byType["collab_waiting_end"]["statuses"].(map[string]any)
	if done, _ := st[spawned].(map[string]any); done["completed"] == nil {
		t.Errorf("collab_waiting_end %v, want %s completed with its report", byType["collab_waiting_end"], spawned)
	}
}

// readCollabGolden reads the collab messages Codex 0.140's mcp-server sent
// (recorded by dev/codex140collab).
func readCollabGolden(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "frontend", "mcpserver", "testdata", "codex140_collab.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["_not_sent"]; !ok {
			out = append(out, m)
		}
	}
	return out
}

// collabShapeDiff says where a message's keys or value types differ from
// Codex's: every key of Codex's with a value of the same JSON type (an
// agent's status: the same string or a one-key object of the same key), no
// key Codex lacks but a role (its agent had none). A map keyed by thread id
// is compared by its values.
func collabShapeDiff(got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%v is not an object", got)
		}
		if len(w) == 1 && len(g) == 1 && strings.HasPrefix(firstKey(w), "AGENT") {
			return collabShapeDiff(g[firstKey(g)], w[firstKey(w)])
		}
		var diffs []string
		for k, wv := range w {
			if gv, ok := g[k]; !ok {
				diffs = append(diffs, "missing "+k)
			} else if d := collabShapeDiff(gv, wv); d != "" {
				diffs = append(diffs, k+": "+d)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok && !strings.HasSuffix(k, "_role") {
				diffs = append(diffs, "extra "+k)
			}
		}
		sort.Strings(diffs)
		return strings.Join(diffs, "; ")
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%v is not an array of %d", got, len(w))
		}
		for i := range w {
			if d := collabShapeDiff(g[i], w[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
		return fmt.Sprintf("%v (%T) is not a %T", got, got, want)
	}
	return ""
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

// `interpreter threads show` of a root lists its sub-agents as a tree
// (a sub-agent's own under it) with nickname, role, status and report;
// --json carries the same, and a sub-agent's show names its parent.
func TestThreadsShowSubAgentTree(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"look around","agent_type":"explorer"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "wait_agent", Arguments: json.RawMessage(`{"targets":["{{output.0.agent_id}}"],"timeout_ms":120000}`)}}},
			{Text: "root done"},
		}},
		{Match: "look around", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"look deeper"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "wait_agent", Arguments: json.RawMessage(`{"targets":["{{output.0.agent_id}}"],"timeout_ms":120000}`)}}},
			{Text: "nothing here"},
		}},
		{Match: "look deeper", Steps: []fakemodel.Step{{Text: "nothing deeper"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "-c", "features.multi_agent=true", "-c", "agents.max_depth=2", "-c", "approval_policy=never", "delegate a look")
	if code := run.Wait(2 * time.Minute); code != 0 {
		t.Fatalf("exec: exit %d\n%s", code, run.Stderr)
	}
	root := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	show := func(args ...string) string {
		p := e.Start(append(append([]string{"threads", "show"}, args...), append(e.Config(), "-c", "temporal.embedded=false")...)...)
		if code := p.Wait(time.Minute); code != 0 {
			t.Fatalf("threads show %v: exit %d\n%s", args, code, p.Stderr)
		}
		return p.Stdout.String()
	}
	var d struct {
		Agents []struct {
			ThreadID                        string `json:"thread_id"`
			Nickname, Role, Status, Message string
			Agents                          []struct {
				ThreadID string `json:"thread_id"`
				Message  string
			}
		}
	}
	if err := json.Unmarshal([]byte(show(root, "--json")), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Agents) != 1 || d.Agents[0].Role != "explorer" || d.Agents[0].Nickname == "" || d.Agents[0].Status != "completed" ||
		d.Agents[0].Message != "nothing here" || len(d.Agents[0].Agents) != 1 || d.Agents[0].Agents[0].Message != "nothing deeper" {
		t.Fatalf("threads show --json agents: %+v", d.Agents)
	}
	kid, grandkid := d.Agents[0].ThreadID, d.Agents[0].Agents[0].ThreadID
	text := show(root)
	t.Logf("threads show %s:\n%s", root, text)
	for _, want := range []string{
		"sub-agents (1):",
		"  └ " + kid + "  " + d.Agents[0].Nickname + " (explorer) · completed: nothing here",
		"    └ " + grandkid + "  ",
		"sub-agents: wait_agent " + kid + "  [completed]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("threads show lacks %q", want)
		}
	}
	if kidText := show(kid); !strings.Contains(kidText, "sub-agent "+d.Agents[0].Nickname+" (explorer) of "+root+" · depth 1") {
		t.Errorf("threads show of the sub-agent does not name its parent:\n%s", kidText)
	}
}
