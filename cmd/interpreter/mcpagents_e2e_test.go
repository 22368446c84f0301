package main

import (
	"encoding/json"
	"testing"

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
	if ids, _ := byType["collab_waiting_begin"]["receiver_thread_ids"].([]any); len(ids) != 1 || ids[0] != spawned {
		t.Errorf("collab_waiting_begin %v, want receiver %s", byType["collab_waiting_begin"], spawned)
	}
	st, _ := byType["collab_waiting_end"]["statuses"].(map[string]any)
	if done, _ := st[spawned].(map[string]any); done["completed"] != "nothing here" {
		t.Errorf("collab_waiting_end %v, want %s completed with its report", byType["collab_waiting_end"], spawned)
	}
}
