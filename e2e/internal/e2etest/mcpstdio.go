package e2etest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// MCPStdio is `interpreter mcp-server` with newline-delimited JSON-RPC on
// its stdin and stdout, every message it writes kept.
type MCPStdio struct {
	*Piped
	t      *testing.T
	mu     sync.Mutex
	msgs   []map[string]any
	nextID int
}

// MCPStdio starts `interpreter mcp-server` (with args after it) and
// initializes the session.
func (e *Env) MCPStdio(args ...string) *MCPStdio {
	e.T.Helper()
	s := &MCPStdio{t: e.T}
	s.Piped = e.StartPiped(append([]string{"mcp-server"}, args...), func(b []byte) {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			m = map[string]any{"unparsed": string(b)}
		}
		s.mu.Lock()
		s.msgs = append(s.msgs, m)
		s.mu.Unlock()
	}, nil)
	init := s.Request("initialize", map[string]any{"protocolVersion": "2025-06-18",
		"capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "crashmatrix", "version": "1"}})
	s.Response(init)
	s.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return s
}

// Send writes one JSON-RPC message.
func (s *MCPStdio) Send(v any) {
	s.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := s.Stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("writing to mcp-server: %v\n%s", err, s.Diag())
	}
}

// Request sends a request and returns its id.
func (s *MCPStdio) Request(method string, params any) int {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	s.Send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id
}

// Snapshot is every message read so far.
func (s *MCPStdio) Snapshot() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.msgs...)
}

// Diag is the messages and stderr so far, for a failure message.
func (s *MCPStdio) Diag() string {
	var b strings.Builder
	for _, m := range s.Snapshot() {
		if m["method"] == "codex/event" {
			p, _ := m["params"].(map[string]any)
			msg, _ := p["msg"].(map[string]any)
			fmt.Fprintf(&b, "codex/event %v\n", msg["type"])
			continue
		}
		j, _ := json.Marshal(m)
		fmt.Fprintf(&b, "%s\n", j)
	}
	return fmt.Sprintf("mcp-server stdout:\n%s\nstderr:\n%s", b.String(), s.Stderr)
}

// Find waits for a message that matches (what names it in a failure).
func (s *MCPStdio) Find(what string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	var found map[string]any
	WaitUntil(s.t, func() bool {
		for _, m := range s.Snapshot() {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	}, 90*time.Second, what, s.Diag)
	return found
}

// Response waits for the response to the request id.
func (s *MCPStdio) Response(id int) map[string]any {
	s.t.Helper()
	return s.Find(fmt.Sprintf("the response to %d", id), func(m map[string]any) bool {
		_, isReq := m["method"]
		return !isReq && m["id"] == float64(id)
	})
}
