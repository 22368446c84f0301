package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// With two workers on one host queue, a stop the queue gave to the worker
// that does not run the command names the queue of the one that does
// (found from the command's pending activity on the server), and an
// interrupt stops the command at once whichever worker took the first
// stop.
func TestStopFindsTheWorkerRunningTheCommand(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "quiet", Steps: []fakemodel.Step{{Shell: "exec sleep 57.25"}, {Text: "never read"}}},
	}})
	a := w.StartWorker(WorkerOptions{Name: "a"})
	b := w.StartWorker(WorkerOptions{Name: "b"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := "stopq-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	awaitCommandsRunning(ctx, t, w, []string{resp.TurnID})
	// The command item starts before a worker takes the Exec activity:
	// wait for the server to name the worker that took it.
	identity := awaitExecWorker(ctx, t, w, resp.TurnID)
	holder, other := a.Activities(), b.Activities()
	if strings.HasSuffix(identity, activities.StopQueueTag+other.SessionQueue) {
		holder, other = other, holder
	}
	out, err := other.StopCommand(ctx, activities.StopCommandInput{TurnID: resp.TurnID, CallID: "any"})
	if err != nil || out.Stopped || out.Queue != holder.SessionQueue {
		t.Fatalf("stop on the other worker: %+v %v, want the queue %s", out, err, holder.SessionQueue)
	}
	begun := time.Now()
	if err := threads.Interrupt(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusInterrupted {
		t.Fatalf("turn: %s %s", res.Status, res.Error)
	}
	// At once, not with the command's next keep-alive heartbeat (5 s).
	if took := time.Since(begun); took > 4*time.Second {
		t.Errorf("the interrupted turn ended %s after the interrupt", took)
	}
}

// awaitExecWorker waits for a turn's pending Exec activity to be taken
// and returns the identity of the worker that took it.
func awaitExecWorker(ctx context.Context, t *testing.T, w *World, turnID string) string {
	t.Helper()
	for {
		d, err := w.Client.DescribeWorkflowExecution(ctx, turnID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.GetPendingActivities() {
			if p.GetActivityType().GetName() == "Exec" && p.GetLastWorkerIdentity() != "" {
				return p.GetLastWorkerIdentity()
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no worker took the Exec activity of %s", turnID)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
