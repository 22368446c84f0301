package e2etest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
)

// AppServer is a running `interpreter app-server` driven over its stdin
// and stdout, as an orchestrator drives it. Every line it writes is
// checked against the reference JSON Schema.
type AppServer struct {
	*Piped
	t       *testing.T
	lines   chan []byte
	schema  *codexschema.Validator
	mu      sync.Mutex
	methods map[string]string
	nextID  int
	Seen    []map[string]any
}

// AppServer starts `interpreter app-server` against the dev server (extra
// flags after it), every line it writes checked against schema.
func (e *Env) AppServer(schema *codexschema.Validator, extra ...string) *AppServer {
	e.T.Helper()
	args := append([]string{"app-server"}, e.Config()...)
	args = append(args, "-c", "temporal.embedded=false")
	args = append(args, extra...)
	a := &AppServer{t: e.T, lines: make(chan []byte, 10000), schema: schema, methods: map[string]string{}}
	a.Piped = e.StartPiped(args, func(b []byte) { a.lines <- append([]byte(nil), b...) }, func() { close(a.lines) })
	return a
}

// Send writes one JSON-RPC message.
func (a *AppServer) Send(v any) {
	a.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := a.Stdin.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("writing to app-server: %v\nstderr:\n%s", err, a.Stderr)
	}
}

// Request sends a request and returns its id.
func (a *AppServer) Request(method string, params any) string {
	a.t.Helper()
	a.mu.Lock()
	a.nextID++
	id := fmt.Sprint(a.nextID)
	a.methods[id] = method
	a.mu.Unlock()
	a.Send(map[string]any{"id": a.nextID, "method": method, "params": params})
	return id
}

// Read is the next message, within timeout.
func (a *AppServer) Read(timeout time.Duration) map[string]any {
	a.t.Helper()
	select {
	case line, ok := <-a.lines:
		if !ok {
			a.t.Fatalf("app-server closed stdout\nstderr:\n%s", a.Stderr)
		}
		if err := a.schema.Line(line, func(id string) string {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.methods[id]
		}); err != nil {
			a.t.Fatalf("app-server wrote a message outside the reference schema: %v\n%s", err, line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			a.t.Fatalf("not JSON: %s", line)
		}
		a.Seen = append(a.Seen, m)
		return m
	case <-time.After(timeout):
		a.t.Fatalf("no message from app-server in %s\nstderr:\n%s", timeout, a.Stderr)
	}
	return nil
}

// Call sends a request and reads until its response; it returns the
// result and the notifications read on the way.
func (a *AppServer) Call(method string, params any) (map[string]any, []map[string]any) {
	a.t.Helper()
	id := a.Request(method, params)
	var notes []map[string]any
	for {
		m := a.Read(60 * time.Second)
		if _, ok := m["method"]; ok {
			notes = append(notes, m)
			continue
		}
		if fmt.Sprint(m["id"]) != id {
			a.t.Fatalf("unexpected response %v while waiting for %s", m, id)
		}
		if m["error"] != nil {
			a.t.Fatalf("%s failed: %v", method, m["error"])
		}
		return m["result"].(map[string]any), notes
	}
}

// Until reads notifications until one with method.
func (a *AppServer) Until(method string, timeout time.Duration) []map[string]any {
	a.t.Helper()
	var got []map[string]any
	for {
		m := a.Read(timeout)
		got = append(got, m)
		if m["method"] == method {
			return got
		}
	}
}

// Handshake is initialize and initialized.
func (a *AppServer) Handshake() {
	a.t.Helper()
	a.Call("initialize", map[string]any{"clientInfo": map[string]any{"name": "symphony", "version": "1.0"}, "capabilities": map[string]any{}})
	a.Send(map[string]any{"method": "initialized", "params": map[string]any{}})
}

// LoadSchema is the app-server protocol's reference JSON Schema.
func LoadSchema(t *testing.T) *codexschema.Validator {
	t.Helper()
	v, err := codexschema.Load()
	if err != nil {
		t.Fatalf("loading the reference schema: %v", err)
	}
	return v
}

// NoteParams are a notification's params.
func NoteParams(m map[string]any) map[string]any { return m["params"].(map[string]any) }

// Last is the last of ms.
func Last(ms []map[string]any) map[string]any { return ms[len(ms)-1] }

// CallErr sends a request that must fail and returns its error object.
func (a *AppServer) CallErr(method string, params any) map[string]any {
	a.t.Helper()
	id := a.Request(method, params)
	for {
		m := a.Read(60 * time.Second)
		if _, ok := m["method"]; ok {
			continue
		}
		if fmt.Sprint(m["id"]) != id || m["error"] == nil {
			a.t.Fatalf("want an error for %s, got %v", method, m)
		}
		return m["error"].(map[string]any)
	}
}

// HandshakeExperimental is the handshake of a client that opts in to
// the experimental API.
func (a *AppServer) HandshakeExperimental() {
	a.t.Helper()
	a.Call("initialize", map[string]any{"clientInfo": map[string]any{"name": "symphony", "version": "1.0"},
		"capabilities": map[string]any{"experimentalApi": true}})
	a.Send(map[string]any{"method": "initialized", "params": map[string]any{}})
}

// Answer responds to a request the app-server sent.
func (a *AppServer) Answer(req map[string]any, result any) {
	a.Send(map[string]any{"id": req["id"], "result": result})
}
