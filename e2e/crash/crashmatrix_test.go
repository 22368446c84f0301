package crash

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// The crash matrix (issue 13): SIGKILL of the worker, the front end or the
// whole dev server, while a turn is in a model call, in a shell command,
// waiting for an approval, or between turns, for each of the three front
// ends: 36 cells. In every cell the turn goes on after the restart and
// completes, a new prompt then runs on the thread (a killed front end is
// replaced by a new one that continues the thread by id: `exec resume`,
// MCP codex-reply, app-server thread/resume), no command runs twice
// (counted by the lines it appends to a marker file) and no process of an
// interrupted command survives (looked for in /proc by an environment
// marker). The time from the restart (the restarted process ready, or the
// new front end started) to the thread's next progress (its next model
// request; in an approval cell, the approved command starting) is logged;
// only a generous bound is asserted, the machine being noisy.
//
// A "worker" kill runs `interpreter worker` against a Temporal server of
// its own (in the test process); a "dev" kill restarts `interpreter dev`
// on the same state and port; a "frontend" kill SIGKILLs exec, mcp-server
// or app-server. Between turns, a killed exec has already exited: the cell
// is the resume that follows.

const (
	killWorker   = "worker"
	killFrontEnd = "frontend"
	killDev      = "dev"

	phaseModel    = "model"
	phaseShell    = "shell"
	phaseApproval = "approval"
	phaseBetween  = "between"

	feExec = "exec"
	feMCP  = "mcp"
	feApp  = "app"
)

// progressBound is the generous bound on restart-to-progress asserted.
const progressBound = 30 * time.Second

// matrixCell is one row: who is killed, when, under which front end.
type matrixCell struct{ target, phase, fe string }

func (c matrixCell) id() string { return "cm-" + c.fe + "-" + c.target + "-" + c.phase }

// steps are the first turn's model answers for the cell's phase.
func (c matrixCell) steps() []fakemodel.Step {
	cmd := fmt.Sprintf("echo run >> runs-%[1]s.txt; CRASHMATRIX=%[1]s sleep %[2]d; echo end >> runs-%[1]s.txt", c.id(), map[bool]int{true: 1, false: 3}[c.phase == phaseApproval])
	switch c.phase {
	case phaseModel:
		return []fakemodel.Step{{DelayMs: 1500, Text: "first done " + c.id()}}
	case phaseShell, phaseApproval:
		return []fakemodel.Step{{Shell: cmd}, {Text: "first done " + c.id()}}
	}
	return []fakemodel.Step{{Text: "first done " + c.id()}}
}

func (c matrixCell) policy() string {
	if c.phase == phaseApproval {
		return "untrusted"
	}
	return "never"
}

// matrixFrontEnd drives one kind of front end through a cell.
type matrixFrontEnd interface {
	// begin starts a thread and its first turn; it returns the thread id.
	begin(prompt, policy string) string
	// asked waits until the front end shows the pending approval;
	// approve answers it as the front end's user.
	asked()
	approve()
	// firstDone waits until the front end has shown the first turn's end.
	firstDone(answer string)
	kill()
	// attach starts a new front end that continues the thread by id (the
	// running turn to its end, then the prompt).
	attach(thread, prompt string)
	// cont runs the prompt on the thread from the front end that began
	// it, once its first turn has ended.
	cont(thread, prompt string)
	// finish waits until the front end has shown the answer to the last
	// prompt.
	finish(answer string)
}

// matrixWorld is the servers of one front end × kill target: the four
// phases run in it one after the other, each on a thread of its own.
type matrixWorld struct {
	*env
	target string
	ww     *workerWorld
	wk     *e2etest.Proc
	dev    *e2etest.Proc
}

func matrixScript(cells []matrixCell) *fakemodel.Script {
	s := &fakemodel.Script{}
	for _, c := range cells {
		s.Turns = append(s.Turns,
			fakemodel.Turn{Match: c.id() + " first", Steps: c.steps()},
			fakemodel.Turn{Match: c.id() + " again", Steps: []fakemodel.Step{{Text: "again done " + c.id()}}})
	}
	return s
}

func newMatrixWorld(t *testing.T, target string, cells []matrixCell) *matrixWorld {
	t.Helper()
	w := &matrixWorld{target: target}
	if target == killWorker {
		w.ww = newWorkerWorld(t, matrixScript(cells))
		w.env = w.ww.env
		w.WriteSDKConfig()
		w.wk, _ = w.ww.Worker()
		return w
	}
	w.env = newEnv(t, matrixScript(cells))
	w.WriteSDKConfig()
	w.dev = w.StartDev()
	return w
}

// client dials the world's Temporal server afresh (a restarted dev server
// is a new one on the same port).
func (w *matrixWorld) client() client.Client {
	w.T.Helper()
	c, err := client.Dial(client.Options{HostPort: fmt.Sprintf("127.0.0.1:%d", w.Port), Logger: e2etest.QuietLogger{}})
	if err != nil {
		w.T.Fatal(err)
	}
	return c
}

// restart SIGKILLs the worker or the dev server and starts it again; it
// returns when the new one is ready.
func (w *matrixWorld) restart() time.Time {
	w.T.Helper()
	if w.target == killWorker {
		w.wk.Kill()
		var ready time.Time
		w.wk, ready = w.ww.Worker()
		return ready
	}
	w.dev.Kill()
	w.dev = w.StartDev()
	return time.Now()
}

// markerProcs are the pids of live processes whose environment holds
// CRASHMATRIX=id.
func markerProcs(id string) []string {
	want := []byte("CRASHMATRIX=" + id + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), string(want)) {
			if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie has ended; its parent has yet to reap it
			}
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}

func TestCrashMatrix(t *testing.T) {
	start := time.Now()
	for _, fe := range []string{feExec, feMCP, feApp} {
		for _, target := range []string{killWorker, killFrontEnd, killDev} {
			t.Run(fe+"/"+target, func(t *testing.T) {
				t.Parallel()
				var cells []matrixCell
				for _, phase := range []string{phaseModel, phaseShell, phaseApproval, phaseBetween} {
					cells = append(cells, matrixCell{target: target, phase: phase, fe: fe})
				}
				w := newMatrixWorld(t, target, cells)
				// The phases run in the world's own test: the processes a
				// phase restarts serve the next one.
				for _, c := range cells {
					runMatrixCell(t, w, c)
				}
			})
		}
	}
	t.Cleanup(func() { t.Logf("crash matrix: %s", time.Since(start).Round(time.Millisecond)) })
}

func (w *matrixWorld) frontEnd(t *testing.T, fe string) matrixFrontEnd {
	switch fe {
	case feExec:
		return &execFE{t: t, w: w}
	case feMCP:
		return &mcpFE{t: t, w: w}
	}
	return &appFE{t: t, w: w}
}

func runMatrixCell(t *testing.T, w *matrixWorld, c matrixCell) {
	t.Helper()
	id := c.id()
	runs := filepath.Join(w.Work, "runs-"+id+".txt")
	lines := func(word string) int { b, _ := os.ReadFile(runs); return strings.Count(string(b), word+"\n") }
	diag := func() string {
		b, _ := os.ReadFile(runs)
		out := fmt.Sprintf("runs: %q", b)
		if w.dev != nil {
			out += "\ndev stderr:\n" + w.dev.Stderr.String()
		}
		return out
	}
	f := w.frontEnd(t, c.fe)
	thread := f.begin(id+" first", c.policy())
	turn := thread + "/turn-1"

	// The point of the turn the kill lands at.
	switch c.phase {
	case phaseModel:
		e2etest.WaitUntil(t, func() bool { return w.Model.Server.ArrivalsContaining(id+" first") > 0 }, 60*time.Second, "the model call", diag)
		if w.target == killWorker {
			w.ww.pendingStarted(turn, "CallModel")
			w.ww.settled(turn)
		}
	case phaseShell:
		e2etest.WaitUntil(t, func() bool { return lines("run") > 0 }, 60*time.Second, "the command to start", diag)
		if w.target == killWorker {
			w.ww.pendingStarted(turn, "Exec")
			w.ww.settled(turn)
		}
	case phaseApproval:
		f.asked()
		if w.target == killWorker {
			w.ww.settled(turn)
		}
	case phaseBetween:
		f.firstDone("first done " + id)
		if w.target == killWorker {
			w.ww.settled(thread)
		}
	}
	before := w.Model.Server.ArrivalsContaining(id)
	// The turn's next progress: its next model request, or in an approval
	// cell the approved command starting (it runs 1 s before the model is
	// asked again).
	progressed := func() bool {
		return w.Model.Server.ArrivalsContaining(id) > before || (c.phase == phaseApproval && lines("run") > 0)
	}

	// The kill and the restart.
	var ready time.Time
	if w.target == killFrontEnd {
		f.kill()
		ready = time.Now()
	} else {
		ready = w.restart()
	}
	// The thread's next progress is watched from now on, whatever the
	// front end waits for meanwhile.
	var progressMu sync.Mutex
	var progressAt time.Time
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			// One more look once stopped: the request may have come
			// since the last (the figure is then an upper bound).
			stopped := false
			select {
			case <-stop:
				stopped = true
			default:
			}
			if progressed() {
				progressMu.Lock()
				progressAt = time.Now()
				progressMu.Unlock()
				return
			}
			if stopped {
				return
			}
			select {
			case <-stop:
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	stopWatching := sync.OnceFunc(func() { close(stop); <-watched })
	defer stopWatching()

	if c.phase == phaseShell && c.target != killFrontEnd {
		// The command died with its worker.
		e2etest.WaitUntil(t, func() bool { return len(markerProcs(id)) == 0 }, 10*time.Second, "the interrupted command's processes to end",
			func() string { return fmt.Sprintf("pids %v", markerProcs(id)) })
	}
	if w.target == killFrontEnd {
		f = w.frontEnd(t, c.fe)
		f.attach(thread, id+" again")
	}
	if c.phase == phaseApproval {
		f.asked()
		f.approve()
	}
	if w.target != killFrontEnd {
		f.cont(thread, id+" again")
	}
	f.finish("again done " + id)
	stopWatching()

	progressMu.Lock()
	took := progressAt.Sub(ready)
	seen := !progressAt.IsZero()
	progressMu.Unlock()
	if !seen {
		t.Fatalf("%s: the thread made no model request after the restart", id)
	}
	t.Logf("%s: restart to next progress %v", id, took.Round(time.Millisecond))
	// CM_DEBUG=1 logs the events of the cell's thread and turns from a
	// second before the restart, relative to it: where a slow cell's time
	// went (a task on a dead worker's sticky queue, a task timeout).
	if os.Getenv("CM_DEBUG") != "" {
		dc := w.client()
		for _, wid := range []string{thread, turn, thread + "/turn-2"} {
			it := dc.GetWorkflowHistory(context.Background(), wid, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					break
				}
				if e.GetEventTime().AsTime().After(ready.Add(-1 * time.Second)) {
					t.Logf("DEBUG %s %s %v %s %s", id, wid[len(wid)-7:], e.GetEventTime().AsTime().Sub(ready).Round(time.Millisecond), e.GetEventType(), e.GetWorkflowTaskStartedEventAttributes().GetIdentity()+e.GetWorkflowTaskScheduledEventAttributes().GetTaskQueue().GetName())
				}
			}
		}
		dc.Close()
	}
	if took > progressBound {
		t.Errorf("%s: restart to progress took %v, over %v", id, took, progressBound)
	}

	// The first turn completed, and so did the prompt after it.
	cl := w.client()
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tid := range []string{turn, thread + "/turn-2"} {
		res, err := threads.Outcome(ctx, cl, tid)
		if err != nil || res.Status != workflows.StatusCompleted {
			t.Errorf("%s: turn %s ended %v (%v)", id, tid, res.Status, err)
		}
	}
	if c.phase == phaseShell || c.phase == phaseApproval {
		if n := lines("run"); n != 1 {
			t.Errorf("%s: the command ran %d times", id, n)
		}
		if c.phase == phaseShell && c.target != killFrontEnd && lines("end") != 0 {
			t.Errorf("%s: the interrupted command went on after the kill", id)
		}
		if c.phase == phaseApproval && lines("end") != 1 {
			t.Errorf("%s: the approved command did not run to its end", id)
		}
	}
	if pids := markerProcs(id); len(pids) != 0 {
		t.Errorf("%s: processes of the command survive: %v", id, pids)
	}
}

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
