package appserver

import (
	"strings"
	"testing"
)

// Collaboration modes: collaborationMode/list names plan and default; a
// plan-mode turn/start carries plan instructions and request_user_input
// for that turn only, and the mode's model wins over the turn's.
func TestCollaborationModes(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initializeExperimental()
	modes := c.call("collaborationMode/list", map[string]any{})["data"].([]any)
	if len(modes) != 2 || modes[0].(map[string]any)["mode"] != "plan" || modes[1].(map[string]any)["mode"] != "default" {
		t.Fatalf("modes %v", modes)
	}
	th := c.call("thread/start", map[string]any{})["thread"].(map[string]any)
	c.read() // thread/started
	id := th["id"].(string)
	turn := func(mode map[string]any) map[string]any {
		return map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}, "collaborationMode": mode}
	}
	wantError(t, c.callErr("turn/start", turn(map[string]any{"mode": "pair", "settings": map[string]any{"model": "m"}})), -32600, "is not one of")
	c.call("turn/start", turn(map[string]any{"mode": "plan", "settings": map[string]any{"model": "plan-model", "developer_instructions": nil}}))

	b.mu.Lock()
	req := b.requests[len(b.requests)-1]
	b.mu.Unlock()
	if req.Mode == nil || !strings.Contains(req.Mode.Instructions, "<collaboration_mode># Plan mode") || req.Model != "plan-model" {
		t.Fatalf("plan turn %+v", req)
	}
	if len(req.Mode.Tools) != 1 || req.Mode.Tools[0].Name != "request_user_input" || req.Mode.Tools[0].Server != userInputNamespace {
		t.Fatalf("plan tools %+v", req.Mode.Tools)
	}

	plain := startClient(t, b)
	plain.initialize()
	wantError(t, plain.callErr("turn/start", turn(map[string]any{"mode": "plan", "settings": map[string]any{"model": "m"}})), -32600, "requires experimentalApi")
}
