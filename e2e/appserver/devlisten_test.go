package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// wsPeer is a test's own WebSocket client of the app-server: one JSON
// message per text message, every message checked against the schema.
type wsPeer struct {
	t       *testing.T
	ws      *websocket.Conn
	schema  *codexschema.Validator
	methods map[string]string
	n       int
}

func dialPeer(t *testing.T, url string, schema *codexschema.Validator) *wsPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatalf("dialing %s: %v", url, err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	p := &wsPeer{t: t, ws: ws, schema: schema, methods: map[string]string{}}
	p.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "peer", "version": "1"}})
	p.send(map[string]any{"method": "initialized"})
	return p
}

func (p *wsPeer) send(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if err := p.ws.Write(context.Background(), websocket.MessageText, b); err != nil {
		p.t.Fatalf("writing: %v", err)
	}
}

func (p *wsPeer) read(timeout time.Duration) map[string]any {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, b, err := p.ws.Read(ctx)
	if err != nil {
		p.t.Fatalf("reading: %v", err)
	}
	if err := p.schema.Line(b, func(id string) string { return p.methods[id] }); err != nil {
		p.t.Fatalf("message does not match the schema: %v\n%s", err, b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		p.t.Fatalf("not JSON: %s", b)
	}
	return m
}

// call sends a request and returns its result, skipping notifications.
func (p *wsPeer) call(method string, params any) map[string]any {
	p.t.Helper()
	p.n++
	id := fmt.Sprint(p.n)
	p.methods[id] = method
	p.send(map[string]any{"id": p.n, "method": method, "params": params})
	for {
		m := p.read(60 * time.Second)
		if _, isNote := m["method"]; isNote {
			continue
		}
		if m["error"] != nil {
			p.t.Fatalf("%s: %v", method, m["error"])
		}
		return m["result"].(map[string]any)
	}
}

// untilItem reads until item/completed of an item of type typ.
func (p *wsPeer) untilItem(typ string) map[string]any {
	p.t.Helper()
	for {
		m := p.read(90 * time.Second)
		if m["method"] == "item/completed" {
			if it := e2etest.NoteParams(m)["item"].(map[string]any); it["type"] == typ {
				return it
			}
		}
	}
}

func (p *wsPeer) until(method string) map[string]any {
	p.t.Helper()
	for {
		if m := p.read(90 * time.Second); m["method"] == method {
			return m
		}
	}
}

// `interpreter dev` serves the app-server on the address it prints: two
// clients on one thread both get the turn's item/completed; when one
// disconnects mid-turn the turn goes on and the other sees it finish.
func TestDevServesAppServerToSeveralClients(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "shared turn", Steps: []fakemodel.Step{
			{Shell: "while [ ! -e release1 ]; do sleep 0.05; done; echo first-command"},
			{Shell: "while [ ! -e release2 ]; do sleep 0.05; done; echo second-command"},
			{Text: "shared turn done"},
		}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "ws://127.0.0.1:0"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	m := regexp.MustCompile(`App server: +(ws://\S+)`).FindStringSubmatch(dev.Stdout.String())
	if m == nil {
		t.Fatalf("dev did not print the app-server's address:\n%s", dev.Stdout)
	}
	schema := e2etest.LoadSchema(t)
	a := dialPeer(t, m[1], schema)
	id := a.call("thread/start", map[string]any{"approvalPolicy": "never", "cwd": e.Work})["thread"].(map[string]any)["id"].(string)
	a.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "the shared turn"}}})
	a.untilItem("userMessage")

	b := dialPeer(t, m[1], schema)
	b.call("thread/resume", map[string]any{"threadId": id})
	release := func(name string) {
		if err := os.WriteFile(filepath.Join(e.Work, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release("release1")
	for name, p := range map[string]*wsPeer{"first": a, "second": b} {
		if it := p.untilItem("commandExecution"); !strings.Contains(fmt.Sprint(it["aggregatedOutput"]), "first-command") {
			t.Fatalf("the %s client's command item: %v", name, it)
		}
	}

	a.ws.CloseNow()
	release("release2")
	if it := b.untilItem("commandExecution"); !strings.Contains(fmt.Sprint(it["aggregatedOutput"]), "second-command") {
		t.Fatalf("the remaining client's second command: %v", it)
	}
	if it := b.untilItem("agentMessage"); it["text"] != "shared turn done" {
		t.Fatalf("the remaining client's answer: %v", it)
	}
	if done := e2etest.NoteParams(b.until("turn/completed"))["turn"].(map[string]any); done["status"] != "completed" {
		t.Fatalf("turn/completed: %v", done)
	}
}
