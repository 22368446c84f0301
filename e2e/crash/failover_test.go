package crash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
	"github.com/interpreter-dev/interpreter/worker"
)

// A worker lost for good while another one runs (no restart, so no
// reclaim): the turn whose handed-off model call it held moves on within
// two seconds, on the live worker. The server finds the call lost by its
// 1.5 s heartbeat timeout and, as the holder asked when it took the call
// over, retries it on the shared queue at once: the live worker makes it
// afresh (the second and last request of the step) and resets the turn's
// sticky queue, so the answer's workflow task does not wait on the dead
// worker's either.
func TestFailoverToALiveWorker(t *testing.T) {
	const prompt = "failover cell"
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: prompt, Steps: []fakemodel.Step{{DelayMs: 3000, Text: "model answer"}}},
	}})
	// As on two machines: workers of one host would see each other die
	// (worker.PeersDirEnv) and fail over at once.
	a, _ := w.Worker(worker.PeersDirEnv + "=" + t.TempDir())
	b, _ := w.Worker(worker.PeersDirEnv + "=" + t.TempDir())
	run := w.Exec("--json", prompt)
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	w.pendingStarted(turn, "CallModel")
	w.settled(turn)
	w.failoverArmed(turn)
	holder := w.callHolder(turn)
	victim, survivor := a, b
	if !strings.Contains(holder, fmt.Sprintf("/%d ", a.Cmd.Process.Pid)) {
		victim, survivor = b, a
	}
	if !strings.Contains(holder, fmt.Sprintf("/%d ", victim.Cmd.Process.Pid)) {
		t.Fatalf("the call is held by %q, neither worker (%d, %d)", holder, a.Cmd.Process.Pid, b.Cmd.Process.Pid)
	}
	victim.Kill()
	killed := time.Now()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.Stderr)
	}
	evs := w.history(turn)
	arrivals := w.Model.Server.ArrivalTimes(prompt)
	if len(arrivals) != 2 {
		t.Fatalf("%d requests for the step, want 2 (the lost one and the fresh one)\n%s", len(arrivals), dumpHistory(evs))
	}
	fresh := arrivals[1].Sub(killed)
	answered, next := answerToNextTask(evs, killed)
	t.Logf("kill to the fresh request %v; its answer to the next workflow task %v; survivor pid %d",
		fresh.Round(time.Millisecond), next.Round(time.Millisecond), survivor.Cmd.Process.Pid)
	if testing.Verbose() {
		t.Logf("kill at %s\n%s", killed.Format("15:04:05.000"), dumpHistory(evs))
	}
	if fresh > 2500*time.Millisecond {
		t.Errorf("the fresh request came %v after the kill, want under 2 s", fresh)
	}
	if !answered {
		t.Errorf("no model call completed after the kill:\n%s", dumpHistory(evs))
	}
	if n := stickyTimeouts(evs); n > 0 {
		t.Errorf("%d workflow tasks waited out a sticky queue, want none:\n%s", n, dumpHistory(evs))
	}
	for _, e := range evs {
		if e.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT {
			t.Errorf("the workflow saw the lost call time out (the server should have retried it):\n%s", dumpHistory(evs))
			break
		}
	}
}

// answerToNextTask finds the first model call that completed after t and
// how long its workflow task took to start.
func answerToNextTask(evs []*historypb.HistoryEvent, t time.Time) (bool, time.Duration) {
	for i, e := range evs {
		if e.GetEventType() != enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED || !e.GetEventTime().AsTime().After(t) {
			continue
		}
		for _, n := range evs[i+1:] {
			if n.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED {
				return true, n.GetEventTime().AsTime().Sub(e.GetEventTime().AsTime())
			}
		}
		return true, 0
	}
	return false, 0
}

// failoverArmed waits until the turn's started model call may be retried
// by the server: its holder asks for that as it takes the call over, a
// round trip after the call shows as started (a kill before that costs
// the workflow's own, slower failover).
func (w *workerWorld) failoverArmed(turnID string) {
	w.T.Helper()
	e2etest.WaitUntil(w.T, func() bool {
		d, err := w.c.DescribeWorkflowExecution(context.Background(), turnID, "")
		if err != nil {
			return false
		}
		for _, pa := range d.GetPendingActivities() {
			if pa.GetActivityType().GetName() == "CallModel" && pa.GetMaximumAttempts() > 1 {
				return true
			}
		}
		return false
	}, 30*time.Second, "the model call's failover", func() string { return dumpHistory(w.history(turnID)) })
}

// callHolder is the identity of the worker that runs the turn's started
// model call.
func (w *workerWorld) callHolder(turnID string) string {
	w.T.Helper()
	return w.holder(turnID, "CallModel")
}

// holder is the identity of the worker that runs the turn's pending
// activity of the given type.
func (w *workerWorld) holder(turnID, activityType string) string {
	w.T.Helper()
	d, err := w.c.DescribeWorkflowExecution(context.Background(), turnID, "")
	if err != nil {
		w.T.Fatal(err)
	}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetActivityType().GetName() == activityType {
			return pa.GetLastWorkerIdentity()
		}
	}
	w.T.Fatalf("no pending %s on %s", activityType, turnID)
	return ""
}

// Two workers of one host, the one running a quiet command SIGKILLed for
// good: the other sees it die (worker.PeersDirEnv) and reports the
// command interrupted within a second or so, not after its 10 min heartbeat
// timeout; the turn goes on, and the command ran once. (The kill comes
// after the command's first 250 ms, which it runs inside the turn's
// workflow task: then it is an Exec activity on its worker's own queue.
// TestLostWorkersLocalCommandIsNotRerun kills it within them.)
func TestLostWorkersCommandIsReportedAtOnce(t *testing.T) {
	const prompt = "lost command cell"
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: prompt, Steps: []fakemodel.Step{{Shell: "echo ran >> runs.txt; sleep 60"}, {Text: "went on"}}},
	}})
	a, _ := w.Worker()
	b, _ := w.Worker()
	run := w.Exec("--json", prompt)
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	runs := filepath.Join(w.Work, "runs.txt")
	e2etest.WaitUntil(t, func() bool { b, _ := os.ReadFile(runs); return strings.Contains(string(b), "ran") }, 60*time.Second,
		"the command to run", func() string { return run.Stdout.String() + run.Stderr.String() })
	w.pendingStarted(turn, "Exec")
	holder := w.holder(turn, "Exec")
	victim := a
	if !strings.Contains(holder, fmt.Sprintf("/%d ", a.Cmd.Process.Pid)) {
		victim = b
	}
	if !strings.Contains(holder, fmt.Sprintf("/%d ", victim.Cmd.Process.Pid)) {
		t.Fatalf("the command is held by %q, neither worker (%d, %d)", holder, a.Cmd.Process.Pid, b.Cmd.Process.Pid)
	}
	victim.Kill()
	killed := time.Now()
	if code := run.Wait(90 * time.Second); code != 0 || !strings.Contains(run.Stdout.String(), "went on") {
		t.Fatalf("exit %d\n%s%s", code, run.Stdout, run.Stderr)
	}
	evs := w.history(turn)
	ended := firstAfter(evs, killed, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, nil)
	if ok, _ := reclaimed(evs, "Exec"); !ok || ended.IsZero() {
		t.Fatalf("the command was not ended by the live worker:\n%s", dumpHistory(evs))
	}
	t.Logf("kill to the command reported interrupted %v", ended.Sub(killed).Round(time.Millisecond))
	if d := ended.Sub(killed); d > 10*time.Second {
		t.Errorf("the command was reported %v after the kill, want within seconds (its heartbeat timeout is 10 min)", d)
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "ran") != 1 {
		t.Errorf("the command ran %d times, want once", strings.Count(string(b), "ran"))
	}
}

// Two workers of one host (commands run locally first, the default), the
// one running a command inside the turn's workflow task (its first 250
// ms, as a local activity) SIGKILLed for good: the command's processes
// die with it; the other worker takes the turn's workflow task once the
// dead one's times out, finds the command's host-local record and
// reports it interrupted instead of running it again; the turn goes on.
func TestLostWorkersLocalCommandIsNotRerun(t *testing.T) {
	const prompt = "lost local command cell"
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: prompt, Steps: []fakemodel.Step{{Shell: "echo ran >> runs.txt; sleep 4; echo end >> runs.txt"}, {Text: "went on"}}},
	}})
	a, _ := w.Worker()
	b, _ := w.Worker()
	run := w.Exec("--json", prompt)
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	runs := filepath.Join(w.Work, "runs.txt")
	// Both workers are frozen (SIGSTOP) as soon as the command has begun,
	// so that its local window does not end while the test finds which
	// of them holds the turn's workflow task; the command's processes,
	// not stopped, go on.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if b, _ := os.ReadFile(runs); strings.Contains(string(b), "ran") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not run\n%s%s", run.Stdout, run.Stderr)
		}
	}
	for _, p := range []*e2etest.Proc{a, b} {
		if err := p.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	holder := w.lastTaskWorker(turn)
	victim, other := a, b
	if !holdsPid(holder, a) {
		victim, other = b, a
	}
	if !holdsPid(holder, victim) {
		t.Fatalf("the turn's workflow task is held by %q, neither worker (%d, %d)", holder, a.Cmd.Process.Pid, b.Cmd.Process.Pid)
	}
	victim.Kill()
	killed := time.Now()
	if err := other.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := run.Wait(90 * time.Second); code != 0 || !strings.Contains(run.Stdout.String(), "went on") {
		t.Fatalf("exit %d\n%s%s", code, run.Stdout, run.Stderr)
	}
	t.Logf("kill to the turn's end %v", time.Since(killed).Round(time.Millisecond))
	evs := w.history(turn)
	for _, e := range evs {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "Exec" {
			t.Fatalf("the command was handed off before the kill (the test needs the kill within its first 250 ms):\n%s", dumpHistory(evs))
		}
	}
	items := e2etest.CompletedItems(e2etest.JSONLines(t, run.Stdout.String()))
	var cmd map[string]any
	for _, it := range items {
		if it["type"] == "command_execution" {
			cmd = it
		}
	}
	if cmd == nil || !strings.Contains(fmt.Sprint(cmd["aggregated_output"]), "interrupted") {
		t.Fatalf("the command item does not say interrupted: %v", cmd)
	}
	if len(w.Model.Server.RequestsContaining("NOT run again")) == 0 {
		t.Error("the model was not told the command was interrupted")
	}
	// Had the command lived on, it would have written its end 4 s after
	// it began (the turn waits out the dead worker's workflow task, which
	// takes longer; the wait is for a quicker one).
	if d := time.Since(killed); d < 5*time.Second {
		time.Sleep(5*time.Second - d)
	}
	b2, _ := os.ReadFile(runs)
	if strings.Count(string(b2), "ran") != 1 || strings.Contains(string(b2), "end") {
		t.Errorf("runs.txt %q: want the command started once and killed with its worker", b2)
	}
}
