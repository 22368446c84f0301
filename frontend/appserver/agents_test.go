package appserver

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A sub-agent tool call shows as Codex's collabAgentToolCall item, valid
// against the reference schemas, started and completed.
func TestCollabAgentItemMatchesSchema(t *testing.T) {
	v := schema(t)
	it := &workflows.Item{ID: "item_3", Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusCompleted,
		Agent: &workflows.AgentCall{Tool: "spawn_agent", SenderThreadID: "root", Receivers: []string{"kid"}, Prompt: "look",
			Agents: []workflows.AgentState{{ThreadID: "kid", Status: workflows.AgentCompleted, Message: "found"}}}}
	for _, item := range []map[string]any{startedItem(it), itemJSON(it)} {
		n := map[string]any{"method": "item/completed", "params": map[string]any{"threadId": "root", "turnId": "root/turn-1", "item": item,
			"completedAtMs": 1}}
		raw, _ := json.Marshal(n)
		if err := v.Check("ServerNotification", raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	got := itemJSON(it)
	if got["tool"] != "spawnAgent" || got["status"] != "completed" {
		t.Errorf("item %v", got)
	}
	st := got["agentsStates"].(map[string]any)["kid"].(map[string]any)
	if st["status"] != "completed" || st["message"] != "found" {
		t.Errorf("state %v", st)
	}
}

// A sub-agent's thread carries its parent, nickname, role and a subAgent
// source, valid against the reference schemas.
func TestSubAgentThreadMatchesSchema(t *testing.T) {
	v := schema(t)
	th := Thread{ID: "kid", SessionID: "kid", Status: ThreadStatus{Type: "idle"}, Cwd: "/work", CLIVersion: "1", Source: "appServer", Turns: []Turn{}}
	subAgentThread(&th, workflows.AgentParent{ThreadID: "root", RootID: "root", Depth: 1, Role: "explorer", Nickname: "Ada"})
	raw, _ := json.Marshal(map[string]any{"method": "thread/started", "params": map[string]any{"thread": th}})
	if err := v.Check("ServerNotification", raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if *th.ParentThreadID != "root" || *th.AgentRole != "explorer" {
		t.Errorf("thread %+v", th)
	}
}
