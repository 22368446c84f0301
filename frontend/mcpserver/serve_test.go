package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// rawClient speaks newline-delimited JSON-RPC to Serve by hand, to send
// what a well-behaved SDK client never would.
type rawClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
}

func newRawClient(t *testing.T, srv *Server) (*rawClient, chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	c := &rawClient{t: t, in: inW, lines: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c, done
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) next() map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server closed its output")
		}
		return m
	case <-time.After(5 * time.Second):
		c.t.Fatal("no line from the server")
	}
	return nil
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// A bad line gets a JSON-RPC error (with its id when it has one) and the
// session goes on; codex/event
// notifications precede the call's response and carry its id; closing
// stdin ends Serve cleanly.
func TestServeBadLinesEventsAndEOF(t *testing.T) {
	c, done := newRawClient(t, New(newFakeBackend(plainPlan), Options{}))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := c.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answer %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, bad := range []struct {
		line string
		code float64
		id   any
	}{
		{`{"jsonrpc":"2.0","id":2,"method":`, -32700, nil},
		{`not json at all`, -32700, nil},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600, nil},
		{`{"id":4,"method":"tools/list"}`, -32600, float64(4)},
	} {
		c.send(bad.line)
		m := c.next()
		if errorCode(m) != bad.code || m["id"] != bad.id {
			t.Errorf("answer to %q: %v, want error %v with id %v", bad.line, m, bad.code, bad.id)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if m := c.next(); m["id"] != float64(5) || m["result"] == nil {
		t.Fatalf("tools/list after bad lines: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":"call-6","method":"tools/call","params":{"name":"codex","arguments":{"prompt":"hi"}}}`)
	events := 0
	for {
		m := c.next()
		if m["method"] == "codex/event" {
			meta := m["params"].(map[string]any)["_meta"].(map[string]any)
			if meta["requestId"] != "call-6" {
				t.Errorf("codex/event requestId %v, want call-6", meta["requestId"])
			}
			events++
			continue
		}
		if m["id"] != "call-6" {
			t.Fatalf("unexpected line %v", m)
		}
		if res := m["result"].(map[string]any); res["isError"] == true {
			t.Fatalf("codex failed: %v", res)
		}
		break
	}
	if events != 8 {
		t.Errorf("%d codex/event notifications before the response, want 8", events)
	}
	c.in.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after stdin closed: %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after stdin closed")
	}
}
