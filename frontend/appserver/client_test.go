package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
)

var (
	validatorOnce sync.Once
	validator     *codexschema.Validator
	validatorErr  error
)

func schema(t *testing.T) *codexschema.Validator {
	t.Helper()
	validatorOnce.Do(func() { validator, validatorErr = codexschema.Load() })
	if validatorErr != nil {
		t.Fatalf("loading the reference schema: %v", validatorErr)
	}
	return validator
}

// testClient drives a Server over pipes, as an orchestrator would, and
// checks every line the server writes against the reference schema.
type testClient struct {
	t       *testing.T
	in      *io.PipeWriter
	lines   chan []byte
	served  chan error
	mu      sync.Mutex
	methods map[string]string
	nextID  int
	seen    []map[string]any
	closed  sync.Once
}

func startClient(t *testing.T, b Backend) *testClient {
	t.Helper()
	return startClientWith(t, b, func(*Options) {})
}

// startClientWith starts a client of a server whose options set changes.
func startClientWith(t *testing.T, b Backend, set func(*Options)) *testClient {
	t.Helper()
	opts := Options{Version: "1.2.3", Home: "/home/test/.interpreter", Cwd: "/work",
		Now: func() time.Time { return time.Unix(1_800_000_100, 0) }}
	set(&opts)
	s := New(b, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &testClient{t: t, in: inW, lines: make(chan []byte, 1000), served: make(chan error, 1), methods: map[string]string{}}
	go func() {
		err := s.Serve(context.Background(), inR, outW)
		outW.Close()
		c.served <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.lines)
	}()
	t.Cleanup(func() { c.close() })
	return c
}

func (c *testClient) close() {
	c.closed.Do(func() {
		c.in.Close()
		select {
		case <-c.served:
		case <-time.After(5 * time.Second):
			c.t.Errorf("the server did not stop after stdin closed")
		}
	})
}

func (c *testClient) sendRaw(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// request sends a request with a fresh id and returns the id.
func (c *testClient) request(method string, params any) string {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	c.mu.Unlock()
	c.requestWithID(id, method, params)
	return id
}

func (c *testClient) requestWithID(id, method string, params any) {
	c.t.Helper()
	c.mu.Lock()
	c.methods[id] = method
	c.mu.Unlock()
	msg := map[string]any{"id": json.RawMessage(id), "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	c.sendRaw(string(b))
}

// read returns the next message the server wrote, checked against the
// schema.
func (c *testClient) read() map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the server closed stdout")
		}
		if err := schema(c.t).Line(line, func(id string) string {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.methods[id]
		}); err != nil {
			c.t.Fatalf("message does not match the reference schema: %v\n%s", err, line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("not JSON: %s", line)
		}
		c.seen = append(c.seen, m)
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no message from the server in 10s; seen:\n%s", c.dump())
	}
	return nil
}

func (c *testClient) dump() string {
	var b strings.Builder
	for _, m := range c.seen {
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteString("\n")
	}
	return b.String()
}

// response reads until the response to id and returns it with the
// notifications read on the way.
func (c *testClient) response(id string) (map[string]any, []map[string]any) {
	c.t.Helper()
	var notes []map[string]any
	for {
		m := c.read()
		if _, isNote := m["method"]; isNote {
			notes = append(notes, m)
			continue
		}
		if fmt.Sprint(jsonID(m["id"])) == id {
			return m, notes
		}
		c.t.Fatalf("unexpected response %v while waiting for %s", m, id)
	}
}

func jsonID(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// call sends a request and returns its result, failing on an error.
func (c *testClient) call(method string, params any) map[string]any {
	c.t.Helper()
	res, notes := c.response(c.request(method, params))
	if len(notes) > 0 {
		c.t.Fatalf("notifications before the response to %s: %v", method, notes)
	}
	if res["error"] != nil {
		c.t.Fatalf("%s failed: %v", method, res["error"])
	}
	return res["result"].(map[string]any)
}

// callErr sends a request that must fail and returns its error object.
func (c *testClient) callErr(method string, params any) map[string]any {
	c.t.Helper()
	res, _ := c.response(c.request(method, params))
	e, ok := res["error"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s succeeded, want an error: %v", method, res)
	}
	return e
}

// until reads notifications until one with method, returning all read.
func (c *testClient) until(method string) []map[string]any {
	c.t.Helper()
	var got []map[string]any
	for {
		m := c.read()
		got = append(got, m)
		if m["method"] == method {
			return got
		}
	}
}

func (c *testClient) initialize() {
	c.t.Helper()
	c.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.sendRaw(`{"method":"initialized"}`)
}

func methods(ms []map[string]any) []string {
	var out []string
	for _, m := range ms {
		if s, ok := m["method"].(string); ok {
			out = append(out, s)
		} else {
			out = append(out, "response")
		}
	}
	return out
}

func params(m map[string]any) map[string]any { return m["params"].(map[string]any) }

func wantError(t *testing.T, e map[string]any, code int, contains string) {
	t.Helper()
	if int(e["code"].(float64)) != code || !strings.Contains(e["message"].(string), contains) {
		t.Fatalf("error %v, want code %d with %q", e, code, contains)
	}
}
