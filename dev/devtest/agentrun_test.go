package devtest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// taskScript: over Anthropic Messages the parent answers its prompt with
// three Task calls in one message, then, with the three results read,
// answers; each sub-agent runs one Bash command that records its start
// and end under dir, and reports.
func taskScript(dir string) *fakemodel.Script {
	var calls []fakemodel.ToolCall
	for _, name := range investigations {
		calls = append(calls, toolCall("Task", map[string]any{"description": "investigate " + name,
			"prompt": "investigate " + name, "subagent_type": "general-purpose"}))
	}
	steps := []fakemodel.Step{{Text: "Three agents, in parallel.", ToolCalls: calls}}
	for len(steps) < len(investigations) {
		steps = append(steps, fakemodel.Step{Text: "unused"})
	}
	steps = append(steps, fakemodel.Step{Text: "combined: the three reports are in"})
	turns := []fakemodel.Turn{{Match: "three independent investigations", Steps: steps}}
	for _, name := range investigations {
		cmd := "date +%s.%N >> " + filepath.Join(dir, name+".start") + "; sleep 2; date +%s.%N >> " +
			filepath.Join(dir, name+".end") + "; echo " + name + "-evidence"
		turns = append(turns, fakemodel.Turn{Match: "investigate " + name, Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("Bash", map[string]any{"command": cmd, "description": "investigate"})}},
			{Text: name + " report"},
		}})
	}
	return &fakemodel.Script{Turns: turns}
}

// TestClaudeCodeTaskRunsSubAgents: a claude-code thread over Anthropic
// Messages (the fake model speaking that wire) offers Task, not Codex's
// tools; its three Task calls of one answer run three sub-agent threads
// whose commands overlap; each Task's result is its agent's final
// message, read back as a tool_result; the agents are closed after.
func TestClaudeCodeTaskRunsSubAgents(t *testing.T) {
	parent := "task-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := t.TempDir()
	w := Start(t, taskScript(dir))
	w.StartWorker(WorkerOptions{Name: "worker-a", NoShellSnapshot: true})
	w.StartWorker(WorkerOptions{Name: "worker-b", NoShellSnapshot: true})
	cfg := agentsConfig(w)
	cfg.Harness = "claude-code"
	cfg.Provider.WireAPI = activities.WireMessages
	cfg.Provider.BaseURL = w.Model.BaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "run three independent investigations in parallel"})
	if err != nil {
		t.Fatal(err)
	}
	res := w.WaitTurn(ctx, parent, resp.TurnID)
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "combined: the three reports are in" {
		t.Fatalf("parent turn: %+v", res)
	}

	reqs := w.Model.Server.Requests()
	var first, last string
	for _, r := range reqs {
		if r.Path != "/v1/messages" {
			t.Fatalf("request to %s", r.Path)
		}
		body := string(r.Body)
		if strings.Contains(body, "three independent investigations") {
			if first == "" {
				first = body
			}
			last = body
		}
	}
	if !strings.Contains(first, `"name":"Task"`) || strings.Contains(first, `"spawn_agent"`) {
		t.Errorf("the parent's first request does not offer Task alone:\n%.2000s", first)
	}
	for _, name := range investigations {
		if !strings.Contains(last, `"type":"tool_result"`) || !strings.Contains(last, name+" report") {
			t.Errorf("the parent's last request lacks %s's result:\n%.3000s", name, last)
		}
	}

	view, err := threads.Read(ctx, w.Client, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Agents) != 3 {
		t.Fatalf("parent has %d sub-agents", len(view.Agents))
	}
	for _, a := range view.Agents {
		if a.Status != workflows.AgentShutdown {
			t.Errorf("agent %s is %s after its Task", a.ID, a.Status)
		}
		child, err := threads.Read(ctx, w.Client, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if child.Parent == nil || child.Parent.ThreadID != parent || len(child.Turns) != 1 || child.Turns[0].Status != workflows.StatusCompleted {
			t.Errorf("sub-agent %s: parent %+v, turns %+v", a.ID, child.Parent, child.Turns)
		}
	}
	var lastStart, firstEnd float64
	for _, name := range investigations {
		s, e := readTimes(t, filepath.Join(dir, name+".start")), readTimes(t, filepath.Join(dir, name+".end"))
		if len(s) != 1 || len(e) != 1 {
			t.Fatalf("%s ran %d times (%d ended)", name, len(s), len(e))
		}
		lastStart = max(lastStart, s[0])
		if firstEnd == 0 || e[0] < firstEnd {
			firstEnd = e[0]
		}
	}
	if lastStart >= firstEnd {
		t.Errorf("the sub-agents' commands did not overlap: last start %.3f, first end %.3f", lastStart, firstEnd)
	}
}

// TestSpawnForkContextCopiesTheConversation: a spawn_agent with
// fork_context, on the embedded server: the agent's first model request
// carries the parent's conversation (its user message and the answer of
// its earlier turn) but none of its tool calls or outputs, then its own
// task; its report reaches the parent's wait.
func TestSpawnForkContextCopiesTheConversation(t *testing.T) {
	parent := "fork-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "remember the codeword", Steps: []fakemodel.Step{{Shell: "echo looked-around"}, {Text: "Noted: KESTREL-7."}}},
		{Match: "ask a fork", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("spawn_agent", map[string]any{"message": "FORKED-TASK: say the codeword", "fork_context": true})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("wait_agent", map[string]any{"targets": []string{workflows.AgentID(parent, 1)}, "timeout_ms": 600000})}},
			{Text: "the fork answered"},
		}},
		{Match: "FORKED-TASK", Steps: []fakemodel.Step{{Text: "the codeword is KESTREL-7"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "w", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: agentsConfig(w)},
		workflows.StartTurnRequest{Prompt: "remember the codeword"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, parent, resp.TurnID); res.Status != workflows.StatusCompleted {
		t.Fatalf("first turn: %+v", res)
	}
	next, err := threads.Reply(ctx, w.Client, parent, workflows.StartTurnRequest{Prompt: "ask a fork"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, parent, next.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "the fork answered" {
		t.Fatalf("second turn: %+v", res)
	}
	reqs := w.Model.Server.RequestsContaining("FORKED-TASK: say the codeword")
	var child string
	for _, r := range reqs {
		var body struct {
			Input []struct {
				Type string `json:"type"`
				Role string `json:"role"`
			} `json:"input"`
		}
		_ = json.Unmarshal(r.Body, &body)
		if n := len(body.Input); n > 0 && body.Input[n-1].Role == "user" && strings.Contains(string(r.Body), `"role":"user"`) &&
			!strings.Contains(string(r.Body), `"type":"function_call_output"`) {
			child = string(r.Body)
		}
	}
	if child == "" {
		t.Fatalf("no request of the forked agent among %d", len(reqs))
	}
	for _, want := range []string{"remember the codeword", "Noted: KESTREL-7.", "ask a fork"} {
		if !strings.Contains(child, want) {
			t.Errorf("the fork's first request lacks %q:\n%.3000s", want, child)
		}
	}
	for _, not := range []string{"looked-around", `"type":"function_call"`} {
		if strings.Contains(child, not) {
			t.Errorf("the fork's first request carries the parent's tool work (%s):\n%.3000s", not, child)
		}
	}
	view, err := threads.Read(ctx, w.Client, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Agents) != 1 || view.Agents[0].Message != "the codeword is KESTREL-7" {
		t.Errorf("agents: %+v", view.Agents)
	}
}
