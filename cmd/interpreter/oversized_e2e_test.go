package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// tooLong is over the input limit of every front end (3 MB, as in the
// report of the issue).
var tooLong = strings.Repeat("x", 3<<20)

const tooLongMessage = "exceeds the maximum length of 1048576 characters."

func oversizedScript() *fakemodel.Script {
	return &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "slow", Steps: []fakemodel.Step{{DelayMs: 2000, Text: "slow done"}}},
		{Steps: []fakemodel.Step{{Text: "ok"}}},
	}}
}

// Oversized input through exec is refused up front, and the thread it
// was meant for takes the next turn.
func TestOversizedInputExec(t *testing.T) {
	e := newEnv(t, oversizedScript())
	dev := e.startDev()
	defer dev.kill()

	refused := e.execStdin(tooLong, "-")
	if code := refused.wait(60 * time.Second); code != 2 || !strings.Contains(refused.stderr.String(), "Input "+tooLongMessage) {
		t.Fatalf("exec - with 3 MB: exit %d, stderr %s", code, refused.stderr)
	}
	first := e.exec("--json", "hello")
	if code := first.wait(60 * time.Second); code != 0 {
		t.Fatalf("first turn: exit %d, %s", code, first.stderr)
	}
	id := threadIDOf(t, jsonLines(t, first.stdout.String()))
	big := e.execStdin(tooLong, "resume", id, "-")
	if code := big.wait(60 * time.Second); code != 2 || !strings.Contains(big.stderr.String(), "Input "+tooLongMessage) {
		t.Fatalf("exec resume with 3 MB: exit %d, stderr %s", code, big.stderr)
	}
	again := e.exec("--json", "resume", id, "again")
	if code := again.wait(60 * time.Second); code != 0 || !strings.Contains(again.stdout.String(), `"ok"`) {
		t.Fatalf("a normal turn after the refused one: exit %d\n%s\n%s", code, again.stdout, again.stderr)
	}
}

// Oversized input through the MCP tools is an isError result, and the
// thread goes on.
func TestOversizedInputMCP(t *testing.T) {
	e := newEnv(t, oversizedScript())
	dev := e.startDev()
	defer dev.kill()
	m := e.mcpRaw()
	m.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	for _, args := range []map[string]any{{"prompt": tooLong}, {"prompt": "hi", "developer-instructions": tooLong}} {
		res := m.tool("codex", args)
		if res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), tooLongMessage) {
			t.Fatalf("codex with 3 MB: %v", res)
		}
	}
	res := m.tool("codex", map[string]any{"prompt": "hello"})
	id, _ := res["structuredContent"].(map[string]any)["threadId"].(string)
	if res["isError"] == true || id == "" {
		t.Fatalf("codex: %v", res)
	}
	res = m.tool("codex-reply", map[string]any{"threadId": id, "prompt": tooLong})
	if res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "prompt "+tooLongMessage) {
		t.Fatalf("codex-reply with 3 MB: %v", res)
	}
	res = m.tool("codex-reply", map[string]any{"threadId": id, "prompt": "again"})
	if res["isError"] == true || !strings.Contains(fmt.Sprint(res["content"]), "ok") {
		t.Fatalf("a normal turn after the refused one: %v", res)
	}
}

// Oversized input through the app-server (thread/start's instructions,
// turn/start, turn/steer) is a -32602 error, and the thread goes on.
func TestOversizedInputAppServer(t *testing.T) {
	e := newEnv(t, oversizedScript())
	dev := e.startDev()
	defer dev.kill()
	a := e.appServer(loadSchema(t))
	a.handshake()
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

	wantInvalid := func(what string, err map[string]any) {
		t.Helper()
		if err["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(err["message"]), tooLongMessage) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wantInvalid("thread/start", a.callErr("thread/start", map[string]any{"baseInstructions": tooLong}))
	res, _ := a.call("thread/start", map[string]any{})
	id := res["thread"].(map[string]any)["id"]
	a.until("thread/started", 30*time.Second)
	wantInvalid("turn/start", a.callErr("turn/start", map[string]any{"threadId": id, "input": text(tooLong)}))

	res, _ = a.call("turn/start", map[string]any{"threadId": id, "input": text("slow")})
	turnID := res["turn"].(map[string]any)["id"]
	wantInvalid("turn/steer", a.callErr("turn/steer", map[string]any{"threadId": id, "expectedTurnId": turnID, "input": text(tooLong)}))
	a.until("turn/completed", 60*time.Second)

	a.call("turn/start", map[string]any{"threadId": id, "input": text("again")})
	notes := a.until("turn/completed", 60*time.Second)
	if st := noteParams(last(notes))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("a normal turn after the refused ones: %v", last(notes))
	}
}

// execStdin runs `interpreter exec` with stdin.
func (e *env) execStdin(stdin string, args ...string) *proc {
	e.t.Helper()
	all := append([]string{"exec"}, e.config()...)
	all = append(all, "-c", "temporal.embedded=false")
	p := &proc{t: e.t, cmd: exec.Command(binary, append(all, args...)...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = e.work
	p.cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.home, "OPENAI_API_KEY=")
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	p.cmd.Stdin = strings.NewReader(stdin)
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	e.t.Cleanup(func() { p.kill() })
	return p
}

// mcpRaw is an mcp-server spoken to by hand, line by line.
type mcpRaw struct {
	*piped
	t     *testing.T
	lines chan map[string]any
	next  int
}

func (e *env) mcpRaw() *mcpRaw {
	e.t.Helper()
	args := append([]string{"mcp-server"}, e.config()...)
	args = append(args, "-c", "temporal.embedded=false")
	m := &mcpRaw{t: e.t, lines: make(chan map[string]any, 1000)}
	m.piped = e.startPiped(args, func(b []byte) {
		var v map[string]any
		if json.Unmarshal(b, &v) == nil {
			m.lines <- v
		}
	}, func() { close(m.lines) })
	return m
}

func (m *mcpRaw) send(v any) {
	m.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := m.stdin.Write(append(b, '\n')); err != nil {
		m.t.Fatalf("writing to mcp-server: %v\n%s", err, m.stderr)
	}
}

// call sends a request and returns its response, skipping notifications.
func (m *mcpRaw) call(method string, params any) map[string]any {
	m.t.Helper()
	m.next++
	id := float64(m.next)
	m.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	timeout := time.After(90 * time.Second)
	for {
		select {
		case l, ok := <-m.lines:
			if !ok {
				m.t.Fatalf("mcp-server closed stdout\n%s", m.stderr)
			}
			if l["id"] == id && l["method"] == nil {
				return l
			}
		case <-timeout:
			m.t.Fatalf("no answer to %s\n%s", method, m.stderr)
		}
	}
}

// tool calls a tool and returns its result.
func (m *mcpRaw) tool(name string, args map[string]any) map[string]any {
	m.t.Helper()
	r := m.call("tools/call", map[string]any{"name": name, "arguments": args})
	res, ok := r["result"].(map[string]any)
	if !ok {
		m.t.Fatalf("tools/call %s: %v", name, r)
	}
	return res
}
