package crash

import (
	"context"
	"fmt"
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
