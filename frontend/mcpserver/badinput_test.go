package mcpserver

import (
	"fmt"
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

// Requests before initialize, and requests the SDK cannot decode, get a
// JSON-RPC code and a message in the client's terms: no Go type names, no
// params echoed back with the server's own _meta key in them.
func TestBadRequestsAreAnsweredInClientTerms(t *testing.T) {
	c, _ := newRawClient(t, New(newFakeBackend(plainPlan), Options{}))
	check := func(line string, code float64, want string) {
		t.Helper()
		c.send(line)
		m := c.nextAnswer()
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if errorCode(m) != code || msg != want {
			t.Errorf("answer to %s:\n%v\nwant code %v and %q", line, m, code, want)
		}
		for _, internal := range []string{"Go value", "Go struct", "mcp.", "jsonrpc2", metaRequestID} {
			if strings.Contains(msg, internal) {
				t.Errorf("answer to %s names %q: %s", line, internal, msg)
			}
		}
	}
	check(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, -32600,
		"Invalid Request: tools/list is not allowed before the session is initialized; send initialize first, then notifications/initialized")
	check(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":5}}`, -32602,
		"Invalid params of initialize: protocolVersion must be a string, not a number")
	check(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":"x"}`, -32602,
		"Invalid params of initialize: params must be an object, not a string")
	check(`5`, -32600,
		"Invalid Request: a message must be a JSON object, not a number")
	check(`{"id":5,"method":"tools/list"}`, -32600, `Invalid Request: "jsonrpc" must be "2.0" (it is missing)`)
	check(`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, `Invalid Request: "id" must be a string or a number, not a boolean`)
	check(`{"jsonrpc":"2.0","id":6,"method":7}`, -32600, `Invalid Request: "method" must be a string, not a number`)
	c.initialize()
	check(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}`, -32602,
		"Invalid params of tools/call: name must be a string, not a number")
	check(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"codex","_meta":"x","arguments":{}}}`, -32602,
		"Invalid params of tools/call: _meta must be an object, not a string")
	check(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1]}`, -32602,
		"Invalid params of tools/call: params must be an object, not an array")

	c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"codex","arguments":"str"}}`)
	res, _ := c.nextAnswer()["result"].(map[string]any)
	if text := fmt.Sprint(res["content"]); res["isError"] != true || !strings.Contains(text, `validating "arguments": arguments must be an object, not a string`) {
		t.Errorf("codex with arguments that are a string: %v", res)
	}
}

// codex-reply with a turn id says so and names the thread.
func TestReplyWithATurnID(t *testing.T) {
	c, _ := newRawClient(t, New(newFakeBackend(plainPlan), Options{}))
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"codex-reply","arguments":{"threadId":"th-9/turn-2","prompt":"hi"}}}`)
	res, _ := c.nextAnswer()["result"].(map[string]any)
	if text := fmt.Sprint(res["content"]); res["isError"] != true || !strings.Contains(text, "that is a turn id (th-9/turn-2); its thread is th-9") {
		t.Fatalf("codex-reply with a turn id: %v", res)
	}
}
