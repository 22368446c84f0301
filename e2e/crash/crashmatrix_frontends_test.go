package crash

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// execFE is `interpreter exec` on a terminal (so it asks approvals).
type execFE struct {
	t      *testing.T
	w      *matrixWorld
	p      *e2etest.Proc
	master *os.File
}

func (f *execFE) run(args ...string) {
	master, tty := e2etest.OpenPTY(f.t)
	all := append([]string{"exec"}, f.w.Config()...)
	all = append(all, "-c", "temporal.embedded=false")
	f.p, f.master = f.w.StartStdin(tty, append(all, args...)...), master
	// Nobody reads the terminal's output (exec writes none there); keep
	// it drained all the same.
	go func() { _, _ = io.Copy(io.Discard, master) }()
}

func (f *execFE) begin(prompt, policy string) string {
	f.run("-c", "approval_policy="+policy, prompt)
	f.p.WaitFor(func() bool { return strings.Contains(f.p.Stderr.String(), " · ") }, 60*time.Second, "the thread line")
	return e2etest.ThreadOf(f.t, f.p.Stderr.String())
}

func (f *execFE) asked() {
	f.p.WaitFor(func() bool { return strings.Contains(f.p.Stderr.String(), "Approve item_") }, 60*time.Second, "the approval prompt")
}

func (f *execFE) approve() {
	if _, err := f.master.Write([]byte("y\n")); err != nil {
		f.t.Fatal(err)
	}
}

func (f *execFE) firstDone(answer string) { f.finish(answer) }

func (f *execFE) kill() { f.p.Kill() }

func (f *execFE) attach(thread, prompt string) { f.run("resume", thread, prompt) }

func (f *execFE) cont(thread, prompt string) {
	if code := f.p.Wait(90 * time.Second); code != 0 {
		f.t.Fatalf("exec exited %d\nstdout:\n%s\nstderr:\n%s", code, f.p.Stdout, f.p.Stderr)
	}
	f.run("resume", thread, prompt)
}

func (f *execFE) finish(answer string) {
	if code := f.p.Wait(90 * time.Second); code != 0 || !strings.Contains(f.p.Stdout.String(), answer) {
		f.t.Fatalf("exec exited %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", code, answer, f.p.Stdout, f.p.Stderr)
	}
}

// appFE is `interpreter app-server` driven over stdio.
type appFE struct {
	t       *testing.T
	w       *matrixWorld
	a       *e2etest.AppServer
	thread  string
	turn    string // the turn the front end follows
	pending map[string]any
	ended   map[string]bool
	texts   []string
	next    string // a prompt to run once the followed turn ends
}

func (f *appFE) spawn() {
	f.a = f.w.AppServer(e2etest.LoadSchema(f.t))
	f.a.Handshake()
	f.ended = map[string]bool{}
}

// readUntil reads messages until match accepts one, keeping what it
// needs of the others.
func (f *appFE) readUntil(what string, match func(map[string]any) bool) map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		m := f.a.Read(90 * time.Second)
		switch m["method"] {
		case "item/commandExecution/requestApproval":
			f.pending = m
		case "turn/completed":
			tr := e2etest.NoteParams(m)["turn"].(map[string]any)
			f.ended[fmt.Sprint(tr["id"])] = true
		case "item/completed":
			if it := e2etest.NoteParams(m)["item"].(map[string]any); it["type"] == "agentMessage" {
				f.texts = append(f.texts, fmt.Sprint(it["text"]))
			}
		}
		if match(m) {
			return m
		}
	}
	f.t.Fatalf("app-server: no %s\nstderr:\n%s", what, f.a.Stderr)
	return nil
}

func (f *appFE) startTurn(prompt string) {
	res, _ := f.a.Call("turn/start", map[string]any{"threadId": f.thread, "input": []any{map[string]any{"type": "text", "text": prompt}}})
	f.turn = res["turn"].(map[string]any)["id"].(string)
}

func (f *appFE) begin(prompt, policy string) string {
	f.spawn()
	res, _ := f.a.Call("thread/start", map[string]any{"cwd": f.w.Work, "approvalPolicy": policy, "sandbox": "workspace-write"})
	f.thread = res["thread"].(map[string]any)["id"].(string)
	f.startTurn(prompt)
	return f.thread
}

func (f *appFE) asked() {
	if f.pending != nil {
		return
	}
	f.readUntil("approval request", func(m map[string]any) bool { return m["method"] == "item/commandExecution/requestApproval" })
}

func (f *appFE) approve() {
	f.a.Answer(f.pending, map[string]any{"decision": "accept"})
	f.pending = nil
}

// turnEnded waits for the followed turn's turn/completed, which must say
// completed.
func (f *appFE) turnEnded() {
	f.t.Helper()
	if f.ended[f.turn] {
		return
	}
	m := f.readUntil("turn/completed of "+f.turn, func(m map[string]any) bool {
		return m["method"] == "turn/completed" && e2etest.NoteParams(m)["turn"].(map[string]any)["id"] == f.turn
	})
	if st := e2etest.NoteParams(m)["turn"].(map[string]any)["status"]; st != "completed" {
		f.t.Fatalf("turn %s ended %v", f.turn, st)
	}
}

func (f *appFE) firstDone(string) { f.turnEnded() }

func (f *appFE) kill() { f.a.Kill() }

func (f *appFE) attach(thread, prompt string) {
	f.spawn()
	f.thread = thread
	res, _ := f.a.Call("thread/resume", map[string]any{"threadId": thread})
	turns := res["thread"].(map[string]any)["turns"].([]any)
	last := turns[len(turns)-1].(map[string]any)
	f.turn = last["id"].(string)
	if last["status"] != "inProgress" {
		f.ended[f.turn] = true
	}
	f.next = prompt
	if f.ended[f.turn] {
		f.startTurn(prompt)
		f.next = ""
	}
}

func (f *appFE) cont(_, prompt string) { f.turnEnded(); f.startTurn(prompt) }

func (f *appFE) finish(answer string) {
	if f.next != "" {
		f.turnEnded()
		f.startTurn(f.next)
		f.next = ""
	}
	f.turnEnded()
	if len(f.texts) == 0 || f.texts[len(f.texts)-1] != answer {
		f.t.Fatalf("app-server: agent messages %q, want the last %q", f.texts, answer)
	}
}

// mcpFE is `interpreter mcp-server` driven over stdio by a minimal MCP
// client that declares elicitation and answers when told.
type mcpFE struct {
	t *testing.T
	w *matrixWorld
	s *e2etest.MCPStdio
	// call is the id of the tools/call the front end waits on.
	call     int
	answered map[any]bool
}

func (f *mcpFE) spawn() {
	f.s = f.w.MCPStdio()
	f.answered = map[any]bool{}
}

func (f *mcpFE) tool(name string, args map[string]any) {
	f.call = f.s.Request("tools/call", map[string]any{"name": name, "arguments": args})
}

func (f *mcpFE) begin(prompt, policy string) string {
	f.spawn()
	f.tool("codex", map[string]any{"prompt": prompt, "approval-policy": policy, "sandbox": "workspace-write", "cwd": f.w.Work})
	var thread string
	f.s.Find("the session", func(m map[string]any) bool {
		if m["method"] != "codex/event" {
			return false
		}
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		thread, _ = meta["threadId"].(string)
		return thread != ""
	})
	return thread
}

// elicitation is the first elicitation/create not answered yet.
func (f *mcpFE) elicitation() map[string]any {
	for _, m := range f.s.Snapshot() {
		if m["method"] == "elicitation/create" && !f.answered[m["id"]] {
			return m
		}
	}
	return nil
}

func (f *mcpFE) asked() {
	e2etest.WaitUntil(f.t, func() bool { return f.elicitation() != nil }, 60*time.Second, "an elicitation", f.s.Diag)
}

func (f *mcpFE) approve() {
	m := f.elicitation()
	f.answered[m["id"]] = true
	f.s.Send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"action": "accept", "content": map[string]any{}}})
}

func (f *mcpFE) content() string {
	f.t.Helper()
	r := f.s.Response(f.call)
	res, ok := r["result"].(map[string]any)
	if !ok || res["isError"] == true {
		f.t.Fatalf("mcp-server: tools/call answered %v\n%s", r, f.s.Diag())
	}
	sc, _ := res["structuredContent"].(map[string]any)
	return fmt.Sprint(sc["content"])
}

func (f *mcpFE) firstDone(answer string) { f.finish(answer) }

func (f *mcpFE) kill() { f.s.Kill() }

func (f *mcpFE) attach(thread, prompt string) {
	f.spawn()
	f.tool("codex-reply", map[string]any{"threadId": thread, "prompt": prompt})
}

func (f *mcpFE) cont(thread, prompt string) {
	f.content()
	f.tool("codex-reply", map[string]any{"threadId": thread, "prompt": prompt})
}

func (f *mcpFE) finish(answer string) {
	if got := f.content(); got != answer {
		f.t.Fatalf("mcp-server: content %q, want %q\n%s", got, answer, f.s.Diag())
	}
}
