package crash

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// workerWorld is a Temporal server of its own (in this test process, so
// it outlives the workers) and `interpreter worker` processes against it:
// the worker alone can be SIGKILLed.
type workerWorld struct {
	*env
	c client.Client
}

func newWorkerWorld(t *testing.T, script *fakemodel.Script) *workerWorld {
	t.Helper()
	e := newEnv(t, script)
	return &workerWorld{env: e, c: e2etest.StartServer(t, e.Port)}
}

// history reads a workflow's events.
func (w *workerWorld) history(id string) []*historypb.HistoryEvent {
	w.T.Helper()
	it := w.c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			w.T.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// firstAfter is the time of the first event of the given type after t
// that match accepts (nil: any), or the zero time.
func firstAfter(evs []*historypb.HistoryEvent, t time.Time, typ enumspb.EventType, match func(*historypb.HistoryEvent) bool) time.Time {
	for _, e := range evs {
		if e.GetEventType() == typ && e.GetEventTime().AsTime().After(t) && (match == nil || match(e)) {
			return e.GetEventTime().AsTime()
		}
	}
	return time.Time{}
}

// stickyTimeouts counts the workflow tasks that waited for a worker's
// sticky queue until they timed out.
func stickyTimeouts(evs []*historypb.HistoryEvent) int {
	n := 0
	for _, e := range evs {
		if a := e.GetWorkflowTaskTimedOutEventAttributes(); a != nil && a.GetTimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START {
			n++
		}
	}
	return n
}

func dumpHistory(evs []*historypb.HistoryEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s %d %s\n", e.GetEventTime().AsTime().Format("15:04:05.000"), e.GetEventId(), e.GetEventType())
	}
	return b.String()
}

// pendingStarted waits until a turn has a started activity of the given
// type.
func (w *workerWorld) pendingStarted(turnID, activityType string) {
	w.T.Helper()
	e2etest.WaitUntil(w.T, func() bool {
		d, err := w.c.DescribeWorkflowExecution(context.Background(), turnID, "")
		if err != nil {
			return false
		}
		for _, pa := range d.GetPendingActivities() {
			if pa.GetActivityType().GetName() == activityType && pa.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
				return true
			}
		}
		return false
	}, 60*time.Second, "a started "+activityType, func() string { return dumpHistory(w.history(turnID)) })
}

// settled waits until a workflow has no workflow task in flight, so a
// kill lands between tasks (a task the dead worker held waits out its
// workflow task timeout: see the README).
func (w *workerWorld) settled(id string) {
	w.T.Helper()
	e2etest.WaitUntil(w.T, func() bool {
		d, err := w.c.DescribeWorkflowExecution(context.Background(), id, "")
		return err == nil && d.GetPendingWorkflowTask() == nil
	}, 60*time.Second, "no workflow task in flight on "+id, func() string { return dumpHistory(w.history(id)) })
}

// reclaimed tells whether an activity of the type ended as failed by a
// restarted worker that found its worker gone (not by the server's
// heartbeat timeout).
func reclaimed(evs []*historypb.HistoryEvent, activityType string) (ok bool, timedOut int) {
	types := map[int64]string{}
	for _, e := range evs {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			types[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskFailedEventAttributes(); a != nil && types[a.GetScheduledEventId()] == activityType &&
			strings.Contains(a.GetFailure().GetMessage(), "is gone") {
			ok = true
		}
		// A handed-off model call's next attempt is the server's, on the
		// shared queue: the reclaim's failure is then the last failure of
		// the attempt that answered.
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil && types[a.GetScheduledEventId()] == activityType &&
			a.GetAttempt() > 1 && strings.Contains(a.GetLastFailure().GetMessage(), "is gone") {
			ok = true
		}
		if a := e.GetActivityTaskTimedOutEventAttributes(); a != nil && types[a.GetScheduledEventId()] == activityType {
			timedOut++
		}
	}
	return ok, timedOut
}

// SIGKILL of the worker alone (the server goes on) at each point of a
// turn: the restarted worker moves the turn on without waiting for the
// dead worker's sticky queue or its activities' heartbeat timeouts, and
// runs nothing twice. The figures (from history timestamps, against the
// moment the restarted worker polls) are logged; the assertions are on
// the mechanism.
func TestWorkerKillCostsNoTimeouts(t *testing.T) {
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "model cell", Steps: []fakemodel.Step{{DelayMs: 3000, Text: "model answer"}}},
		{Match: "shell cell", Steps: []fakemodel.Step{{Shell: "echo ran >> shell.txt; sleep 30"}, {Text: "after the shell"}}},
		{Match: "approval cell", Steps: []fakemodel.Step{{DelayMs: 1500, Shell: "touch approved.txt"}, {Text: "approved done"}}},
		{Match: "next turn cell", Steps: []fakemodel.Step{{Text: "next done"}}},
	}})
	wk, _ := w.Worker()
	restart := func() time.Time {
		wk.Kill()
		var ready time.Time
		wk, ready = w.Worker()
		return ready
	}
	report := func(cell, turnID string, ready time.Time, typ enumspb.EventType, match func(*historypb.HistoryEvent) bool) {
		t.Helper()
		evs := w.history(turnID)
		at := firstAfter(evs, ready.Add(-10*time.Second), typ, match)
		t.Logf("%s: %s %v after the restarted worker polled; sticky schedule-to-start timeouts: %d", cell, typ, at.Sub(ready).Round(time.Millisecond), stickyTimeouts(evs))
		if testing.Verbose() {
			t.Logf("restart at %s\n%s", ready.Format("15:04:05.000"), dumpHistory(evs))
		}
	}
	isType := func(name string) func(*historypb.HistoryEvent) bool {
		return func(e *historypb.HistoryEvent) bool {
			return e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == name
		}
	}

	// Model call: killed while the handed-off call streams.
	run := w.Exec("--json", "model cell")
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	w.pendingStarted(turn, "CallModel")
	w.settled(turn)
	ready := restart()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("model cell: exit %d\n%s", code, run.Stderr)
	}
	if ok, timedOut := reclaimed(w.history(turn), "CallModel"); !ok || timedOut > 0 {
		t.Errorf("model call: the dead worker's call was not ended by the restarted worker (heartbeat timeouts: %d)", timedOut)
	}
	// The fresh attempt: the server's retry of the reclaimed call (its
	// started event).
	report("model call", turn, ready, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, func(e *historypb.HistoryEvent) bool {
		return e.GetActivityTaskStartedEventAttributes().GetAttempt() > 1
	})

	// Shell command: killed while it runs.
	run = w.Exec("--json", "-c", "approval_policy=never", "shell cell")
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn = e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	w.pendingStarted(turn, "Exec")
	w.settled(turn)
	ready = restart()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("shell cell: exit %d\n%s", code, run.Stderr)
	}
	if ok, timedOut := reclaimed(w.history(turn), "Exec"); !ok || timedOut > 0 {
		t.Errorf("shell: the dead worker's command was not ended by the restarted worker (heartbeat timeouts: %d)", timedOut)
	}
	if !strings.Contains(run.Stdout.String(), "was not run again") && !strings.Contains(run.Stdout.String(), "interrupted") {
		t.Errorf("shell: the command is not reported interrupted:\n%s", run.Stdout)
	}
	if n := len(e2etest.CompletedItems(e2etest.JSONLines(t, run.Stdout.String()))); n != 2 {
		t.Errorf("shell: %d items, want the command and the answer", n)
	}
	report("shell", turn, ready, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, nil)

	// Approval: decided right after the restart.
	run = w.Exec("--json", "--approval-policy", "untrusted", "approval cell")
	// The model call can come before exec prints the thread's id.
	e2etest.WaitUntil(t, func() bool {
		return w.Model.Server.ArrivalsContaining("approval cell") > 0 && strings.Contains(run.Stdout.String(), `"thread.started"`)
	}, 60*time.Second, "the model call and thread.started", func() string { return run.Stderr.String() })
	thread := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	run.Kill()
	turn = thread + "/turn-1"
	e2etest.WaitUntil(t, func() bool {
		p, err := threads.PendingApprovals(context.Background(), w.c, thread)
		return err == nil && len(p) == 1
	}, 60*time.Second, "the approval", func() string { return dumpHistory(w.history(turn)) })
	w.settled(turn)
	ready = restart()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := threads.Decide(ctx, w.c, workflows.ApprovalDecision{ThreadID: thread, ItemID: "item_0", Decision: workflows.DecisionApprove}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(ready)
	t.Logf("approval: the decision was accepted %v after the restart", took.Round(time.Millisecond))
	// The mechanism, not a latency: the decision's workflow task did not
	// wait for the dead worker's sticky queue as long as the SDK's
	// default (5 s) would have it; ours is 1 s.
	if took >= sdkStickyDefault {
		t.Errorf("approval: accepted %v after the restart: the task waited on the dead worker's sticky queue", took)
	}
	if res, err := threads.Outcome(ctx, w.c, turn); err != nil || res.Status != workflows.StatusCompleted {
		t.Fatalf("approval cell: %v %v", res.Status, err)
	}
	report("approval", turn, ready, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, isType("Exec"))

	// Between turns: a new turn right after the restart.
	w.settled(thread)
	ready = restart()
	resp, err := threads.Reply(ctx, w.c, thread, workflows.StartTurnRequest{Prompt: "next turn cell"})
	if err != nil {
		t.Fatal(err)
	}
	took = time.Since(ready)
	t.Logf("new turn: accepted %v after the restart", took.Round(time.Millisecond))
	if took >= sdkStickyDefault {
		t.Errorf("new turn: accepted %v after the restart: the task waited on the dead worker's sticky queue", took)
	}
	if res, err := threads.Outcome(ctx, w.c, resp.TurnID); err != nil || res.Status != workflows.StatusCompleted {
		t.Fatalf("next turn cell: %v %v", res.Status, err)
	}
	t.Logf("new turn: completed %v after the restart", time.Since(ready).Round(time.Millisecond))
	report("new turn", resp.TurnID, ready, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, nil)
}

// sdkStickyDefault is the SDK's own sticky schedule-to-start timeout, which
// a task waiting on a dead worker's queue would have waited.
const sdkStickyDefault = 5 * time.Second
