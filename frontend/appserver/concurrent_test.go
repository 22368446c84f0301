package appserver

import "testing"

// A turn/start that waits for its thread does not hold up another
// thread's: each is answered when its own thread took the turn.
func TestTurnStartsOfTwoThreadsDoNotWaitForEachOther(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	slow := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	quick := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	gate := make(chan struct{})
	b.mu.Lock()
	b.startGates = map[string]chan struct{}{slow: gate}
	b.mu.Unlock()
	input := []any{map[string]any{"type": "text", "text": "go"}}
	slowID := c.request("turn/start", map[string]any{"threadId": slow, "input": input})
	quickID := c.request("turn/start", map[string]any{"threadId": quick, "input": input})
	if r, _ := c.response(quickID); r["result"] == nil {
		t.Fatalf("the second thread's turn/start: %v", r)
	}
	close(gate)
	if r, _ := c.response(slowID); r["result"] == nil {
		t.Fatalf("the first thread's turn/start: %v", r)
	}
}
