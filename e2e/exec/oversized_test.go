package exec

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
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
	dev := e.StartDev()
	defer dev.Kill()

	refused := e.execStdin(tooLong, "-")
	if code := refused.Wait(60 * time.Second); code != 2 || !strings.Contains(refused.Stderr.String(), "Input "+tooLongMessage) {
		t.Fatalf("exec - with 3 MB: exit %d, stderr %s", code, refused.Stderr)
	}
	first := e.Exec("--json", "hello")
	if code := first.Wait(60 * time.Second); code != 0 {
		t.Fatalf("first turn: exit %d, %s", code, first.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, first.Stdout.String()))
	big := e.execStdin(tooLong, "resume", id, "-")
	if code := big.Wait(60 * time.Second); code != 2 || !strings.Contains(big.Stderr.String(), "Input "+tooLongMessage) {
		t.Fatalf("exec resume with 3 MB: exit %d, stderr %s", code, big.Stderr)
	}
	again := e.Exec("--json", "resume", id, "again")
	if code := again.Wait(60 * time.Second); code != 0 || !strings.Contains(again.Stdout.String(), `"ok"`) {
		t.Fatalf("a normal turn after the refused one: exit %d\n%s\n%s", code, again.Stdout, again.Stderr)
	}
}

// Oversized input through the MCP tools is an isError result, and the
// thread goes on.
func TestOversizedInputMCP(t *testing.T) {
	e := newEnv(t, oversizedScript())
	dev := e.StartDev()
	defer dev.Kill()
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
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

	wantInvalid := func(what string, err map[string]any) {
		t.Helper()
		if err["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(err["message"]), tooLongMessage) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wantInvalid("thread/start", a.CallErr("thread/start", map[string]any{"baseInstructions": tooLong}))
	res, _ := a.Call("thread/start", map[string]any{})
	id := res["thread"].(map[string]any)["id"]
	a.Until("thread/started", 30*time.Second)
	wantInvalid("turn/start", a.CallErr("turn/start", map[string]any{"threadId": id, "input": text(tooLong)}))

	res, _ = a.Call("turn/start", map[string]any{"threadId": id, "input": text("slow")})
	turnID := res["turn"].(map[string]any)["id"]
	wantInvalid("turn/steer", a.CallErr("turn/steer", map[string]any{"threadId": id, "expectedTurnId": turnID, "input": text(tooLong)}))
	a.Until("turn/completed", 60*time.Second)

	a.Call("turn/start", map[string]any{"threadId": id, "input": text("again")})
	notes := a.Until("turn/completed", 60*time.Second)
	if st := e2etest.NoteParams(e2etest.Last(notes))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("a normal turn after the refused ones: %v", e2etest.Last(notes))
	}
}

// execStdin runs `interpreter exec` with stdin.
func (e *env) execStdin(stdin string, args ...string) *e2etest.Proc {
	e.T.Helper()
	all := append([]string{"exec"}, e.Config()...)
	all = append(all, "-c", "temporal.embedded=false")
	p := &e2etest.Proc{T: e.T, Cmd: exec.Command(e2etest.Binary, append(all, args...)...), Stdout: &e2etest.SyncBuffer{}, Stderr: &e2etest.SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = e.Work
	p.Cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.Home, "OPENAI_API_KEY=")
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	p.Cmd.Stdin = strings.NewReader(stdin)
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() { p.Err = p.Cmd.Wait(); close(p.Done) }()
	e.T.Cleanup(func() { p.Kill() })
	return p
}

// mcpRaw is an mcp-server spoken to by hand, line by line.
type mcpRaw struct {
	*e2etest.Piped
	t     *testing.T
	lines chan map[string]any
	next  int
}

func (e *env) mcpRaw() *mcpRaw {
	e.T.Helper()
	args := append([]string{"mcp-server"}, e.Config()...)
	args = append(args, "-c", "temporal.embedded=false")
	m := &mcpRaw{t: e.T, lines: make(chan map[string]any, 1000)}
	m.Piped = e.StartPiped(args, func(b []byte) {
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
	if _, err := m.Stdin.Write(append(b, '\n')); err != nil {
		m.t.Fatalf("writing to mcp-server: %v\n%s", err, m.Stderr)
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
				m.t.Fatalf("mcp-server closed stdout\n%s", m.Stderr)
			}
			if l["id"] == id && l["method"] == nil {
				return l
			}
		case <-timeout:
			m.t.Fatalf("no answer to %s\n%s", method, m.Stderr)
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
