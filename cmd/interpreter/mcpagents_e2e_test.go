package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// `interpreter mcp-server` streams a root turn's sub-agent calls as
// Codex's collab messages: the spawn names the new thread, the wait names
// it as its receiver and ends with its report.
func TestMCPServerStreamsSubAgentEvents(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"look around"}`)}}},
			{ToolCalls: []fakemodel.ToolCall{{Name: "wait_agent", Arguments: json.RawMessage(`{"targets":["{{output.0.agent_id}}"],"timeout_ms":120000}`)}}},
			{Text: "it said: {{output.1}}"},
		}},
		{Match: "look around", Steps: []fakemodel.Step{{Text: "nothing here"}}},
	}})
	e.writeSDKConfig()
	dev := e.startDev()
	defer dev.kill()
	s := e.mcpStdio("-c", "features.multi_agent=true")
	id := s.request("tools/call", map[string]any{"name": "codex", "arguments": map[string]any{"prompt": "delegate a look", "approval-policy": "never"}})
	resp := s.response(id)
	if r, _ := resp["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Fatalf("codex call: %v\n%s", resp, s.diag())
	}
	byType := map[string]map[string]any{}
	for _, m := range s.snapshot() {
		if m["method"] != "codex/event" {
			continue
		}
		msg, _ := m["params"].(map[string]any)["msg"].(map[string]any)
		if typ, _ := msg["type"].(string); typ != "" {
			byType[typ] = msg
		}
	}
	spawned, _ := byType["collab_agent_spawn_end"]["new_thread_id"].(string)
	if byType["collab_agent_spawn_begin"]["prompt"] != "look around" || spawned == "" || byType["collab_agent_spawn_end"]["new_agent_nickname"] == nil {
		t.Fatalf("spawn messages %v / %v\n%s", byType["collab_agent_spawn_begin"], byType["collab_agent_spawn_end"], s.diag())
	}
	if m := byType["collab_agent_spawn_end"]["model"]; m != "fake-model" {
		t.Errorf("collab_agent_spawn_end model %v, want the one the sub-agent runs (the parent's)", m)
	}
	if ids, _ := byType["collab_waiting_begin"]["receiver_thread_ids"].([]any); len(ids) != 1 || ids[0] != spawned {
		t.Errorf("collab_waiting_begin %v, want receiver %s", byType["collab_waiting_begin"], spawned)
	}
	st, _ := byType["collab_waiting_end"]["statuses"].(map[string]any)
	if done, _ := st[spawned].(map[string]any); done["completed"] != "nothing here" {
		t.Errorf("collab_waiting_end %v, want %s completed with its report", byType["collab_waiting_end"], spawned)
	}
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
	dev := e.startDev()
	defer dev.kill()
	run := e.exec("--json", "-c", "features.multi_agent=true", "-c", "agents.max_depth=2", "-c", "approval_policy=never", "delegate a look")
	if code := run.wait(2 * time.Minute); code != 0 {
		t.Fatalf("exec: exit %d\n%s", code, run.stderr)
	}
	root := threadIDOf(t, jsonLines(t, run.stdout.String()))
	show := func(args ...string) string {
		p := e.start(append(append([]string{"threads", "show"}, args...), append(e.config(), "-c", "temporal.embedded=false")...)...)
		if code := p.wait(time.Minute); code != 0 {
			t.Fatalf("threads show %v: exit %d\n%s", args, code, p.stderr)
		}
		return p.stdout.String()
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
