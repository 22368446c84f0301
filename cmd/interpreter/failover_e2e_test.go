package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// A worker lost for good while another one runs (no restart, so no
// reclaim): the turn whose handed-off model call it held moves on within
// about two seconds (the call's 2 s heartbeat timeout, then the dead
// worker's 1 s sticky queue), on the live worker, and the call is made
// once more only because its answer was lost with the worker; the turn
// completes with no further request.
func TestFailoverToALiveWorker(t *testing.T) {
	const prompt = "failover cell"
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: prompt, Steps: []fakemodel.Step{{DelayMs: 3000, Text: "model answer"}}},
	}})
	a, _ := w.worker()
	b, _ := w.worker()
	run := w.exec("--json", prompt)
	run.waitFor(func() bool { return strings.Contains(run.stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	turn := threadIDOf(t, jsonLines(t, run.stdout.String())) + "/turn-1"
	w.pendingStarted(turn, "CallModel")
	w.settled(turn)
	holder := w.callHolder(turn)
	victim, survivor := a, b
	if !strings.Contains(holder, fmt.Sprintf("/%d ", a.cmd.Process.Pid)) {
		victim, survivor = b, a
	}
	if !strings.Contains(holder, fmt.Sprintf("/%d ", victim.cmd.Process.Pid)) {
		t.Fatalf("the call is held by %q, neither worker (%d, %d)", holder, a.cmd.Process.Pid, b.cmd.Process.Pid)
	}
	victim.kill()
	killed := time.Now()
	if code := run.wait(90 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr)
	}
	evs := w.history(turn)
	isModel := func(typ enumspb.EventType) time.Time {
		for _, e := range evs {
			if e.GetEventType() == typ && e.GetEventTime().AsTime().After(killed) {
				return e.GetEventTime().AsTime()
			}
		}
		return time.Time{}
	}
	lost := isModel(enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)
	fresh := isModel(enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED)
	if lost.IsZero() || fresh.IsZero() {
		t.Fatalf("no timed-out call and fresh call after the kill:\n%s", dumpHistory(evs))
	}
	requests := len(w.model.Server.RequestsContaining(prompt))
	t.Logf("kill to the lost call's timeout %v, to the fresh call's start %v; requests for the step: %d; survivor pid %d",
		lost.Sub(killed).Round(time.Millisecond), fresh.Sub(killed).Round(time.Millisecond), requests, survivor.cmd.Process.Pid)
	if testing.Verbose() {
		t.Logf("kill at %s\n%s", killed.Format("15:04:05.000"), dumpHistory(evs))
	}
	if d := fresh.Sub(killed); d > 4*time.Second {
		t.Errorf("the fresh call started %v after the kill, want about 3 s", d)
	}
	if requests != 2 {
		t.Errorf("%d requests for the step, want 2 (the lost one and the fresh one)", requests)
	}
}

// callHolder is the identity of the worker that runs the turn's started
// model call.
func (w *workerWorld) callHolder(turnID string) string {
	w.t.Helper()
	d, err := w.c.DescribeWorkflowExecution(context.Background(), turnID, "")
	if err != nil {
		w.t.Fatal(err)
	}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetActivityType().GetName() == "CallModel" {
			return pa.GetLastWorkerIdentity()
		}
	}
	w.t.Fatalf("no pending model call on %s", turnID)
	return ""
}
