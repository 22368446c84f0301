package appserver

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A sub-agent tool call shows as Codex's collabAgentToolCall item, valid
// against the reference schemas, started and completed.
func TestCollabAgentItemMatchesSchema(t *testing.T) {
	v := schema(t)
	it := &workflows.Item{ID: "item_3", Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusCompleted,
		Agent: &workflows.AgentCall{Tool: "spawn_agent", SenderThreadID: "root", Receivers: []string{"kid"}, Prompt: "look",
			Agents: []workflows.AgentState{{ThreadID: "kid", Status: workflows.AgentCompleted, Message: "found"}}}}
	for _, item := range []protocol.ThreadItem{startedItem(it), itemJSON(it)} {
		n := map[string]any{"method": "item/completed", "params": map[string]any{"threadId": "root", "turnId": "root/turn-1", "item": item,
			"completedAtMs": 1}}
		raw, _ := json.Marshal(n)
		if err := v.Check("ServerNotification", raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	got := asMap(t, itemJSON(it))
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
	th := Thread{ID: "kid", SessionID: "kid", Status: ThreadStatus{Type: "idle"}, Cwd: "/work", CLIVersion: "1", Turns: []protocol.Turn{}}
	subAgentThread(&th, workflows.AgentParent{ThreadID: "root", RootID: "root", Depth: 1, Role: "explorer", Nickname: "Ada"})
	raw, _ := json.Marshal(map[string]any{"method": "thread/started", "params": map[string]any{"thread": th}})
	if err := v.Check("ServerNotification", raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if *th.ParentThreadID != "root" || *th.AgentRole != "explorer" {
		t.Errorf("thread %+v", th)
	}
}

// thread/list leaves sub-agents out unless sourceKinds or parentThreadId
// ask for them.
func TestSourceMatches(t *testing.T) {
	root := ThreadInfo{ID: "root"}
	kid := ThreadInfo{ID: "kid", Parent: &workflows.AgentParent{ThreadID: "root", Depth: 1}}
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name   string
		kinds  []string
		parent *string
		root   bool
		kid    bool
	}{
		{"default: interactive only", nil, nil, true, false},
		{"subAgentThreadSpawn", []string{"subAgentThreadSpawn"}, nil, false, true},
		{"both", []string{"appServer", "subAgent"}, nil, true, true},
		{"children of root", nil, str("root"), false, true},
		{"children of another", nil, str("other"), false, false},
	} {
		if got := sourceMatches(root, c.kinds, c.parent); got != c.root {
			t.Errorf("%s: root %v", c.name, got)
		}
		if got := sourceMatches(kid, c.kinds, c.parent); got != c.kid {
			t.Errorf("%s: kid %v", c.name, got)
		}
	}
}

// asMap is v as a client reads it.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
