package appserver

import (
	"testing"
	"time"
)

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

// A client that sends its turn/start and closes its input (a script
// piping requests in) still gets the turn started and answered.
func TestTurnStartSentBeforeTheInputEndsIsAnswered(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	gate := make(chan struct{})
	b.mu.Lock()
	b.startGates = map[string]chan struct{}{id: gate}
	b.mu.Unlock()
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}})
	if err := c.in.Close(); err != nil {
		t.Fatal(err)
	}
	// Long after the server read the end of its input.
	time.AfterFunc(200*time.Millisecond, func() { close(gate) })
	if r, _ := c.response(rid); r["result"] == nil {
		t.Fatalf("the turn/start sent before the input ended: %v", r)
	}
}
