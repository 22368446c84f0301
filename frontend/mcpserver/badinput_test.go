package mcpserver

import (
	"strings"
	"testing"
)

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := c.next(); m["id"] != "init" || m["result"] == nil {
		c.t.Fatalf("initialize answer %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// nextAnswer skips notifications.
func (c *rawClient) nextAnswer() map[string]any {
	c.t.Helper()
	for {
		if m := c.next(); m["method"] == nil {
			return m
		}
	}
}

// A second codex call with the id of one still running is answered with
// an error, and the first call goes on to its answer; once that is
// answered, the id may be used again.
func TestDuplicateRequestIDIsAnswered(t *testing.T) {
	gated := true
	b := newFakeBackend(func(string) *fakeTurn {
		ft := completedTurn("done")
		if gated {
			ft.gate, gated = make(chan struct{}), false
		}
		return ft
	})
	c, _ := newRawClient(t, New(b, Options{}))
	c.initialize()
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"codex","arguments":{"prompt":"hi"}}}`
	c.send(call)
	turn := <-b.started
	c.send(call)
	m := c.nextAnswer()
	e, _ := m["error"].(map[string]any)
	if m["id"] != float64(7) || errorCode(m) != -32600 || !strings.Contains(e["message"].(string), "request id 7 is already in use") {
		t.Fatalf("answer to the duplicate: %v", m)
	}
	b.release(turn)
	if m := c.nextAnswer(); m["id"] != float64(7) || m["result"] == nil {
		t.Fatalf("answer to the first call: %v", m)
	}
	c.send(call)
	if m := c.nextAnswer(); m["id"] != float64(7) || m["result"] == nil {
		t.Fatalf("the id used again after its answer: %v", m)
	}
}
