package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// commandHeartbeat is a shell command's heartbeat timeout. Its worker
// heartbeats a quarter of that while the command prints nothing (every
// 2.5 min), and as output grows (throttled) while it prints, so a quiet
// command costs the server a call every few minutes. Nothing waits on that
// cadence: an interrupt reaches the command's worker directly
// ([activities.Activities.StopCommand]), a worker that dies is found at
// once by the other workers of its host (lock files) or by itself when
// it restarts (worker.Reclaim), and followers are woken through the
// turn's history when the command prints. Only a worker lost for good
// with no worker left on its host (a machine of a cluster gone) costs
// this long; CommandHeartbeat in the thread's config chooses another
// value (a cluster whose machines may vanish), ExecHeartbeat (tests) all.
const commandHeartbeat = 10 * time.Minute

func (t *turn) commandHeartbeat() time.Duration {
	if hb := t.in.Config.ExecHeartbeat; hb > 0 {
		return hb
	}
	if hb := t.in.Config.CommandHeartbeat; hb > 0 {
		return hb
	}
	return commandHeartbeat
}

// awaitCommand waits for a command's activity. When the turn is
// interrupted while it runs, it also asks the workspace
// host's worker to stop the command at once: Temporal's cancellation
// reaches an activity only with its next heartbeat, seconds away for a
// quiet command. The activity still ends through its cancellation, which
// carries what it did.
func (t *turn) awaitCommand(ctx workflow.Context, f workflow.Future, callID string, out *activities.ExecOutput) error {
	return t.awaitCommandOn(ctx, f, callID, t.in.Config.HostQueue, out)
}

// awaitCommandOn is [turn.awaitCommand] for a command whose stop goes to
// stopQueue (a handed-off command's, its worker's own queue).
func (t *turn) awaitCommandOn(ctx workflow.Context, f workflow.Future, callID, stopQueue string, out any) error {
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(f, func(workflow.Future) {})
	sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	sel.Select(ctx)
	if ctx.Err() != nil && !f.IsReady() {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		sctx := workflow.WithActivityOptions(dctx, workflow.ActivityOptions{
			TaskQueue:              stopQueue,
			ScheduleToStartTimeout: 5 * time.Second,
			StartToCloseTimeout:    5 * time.Second,
			Summary:                "stop command " + callID,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		stopIn := activities.StopCommandInput{TurnID: workflow.GetInfo(ctx).WorkflowExecution.ID, CallID: callID}
		stop := workflow.ExecuteActivity(sctx, acts.StopCommand, stopIn)
		if workflow.GetVersion(dctx, stopOnWorkerChange, workflow.DefaultVersion, 1) == 1 {
			stop = t.stopOnWorker(dctx, sctx, stop, stopIn)
		}
		err := f.Get(ctx, out)
		// The command's own activity tells how it ended; the stop is
		// waited for (it is done by then, or bounded by its timeouts) so
		// that its completion never arrives while the turn completes,
		// which would fail that workflow task (UNHANDLED_COMMAND).
		_ = stop.Get(dctx, nil)
		return err
	}
	return f.Get(ctx, out)
}

// stopOnWorkerChange marks turns that send a stop on to the worker process
// running the command when the host queue gave it to another worker.
const stopOnWorkerChange = "stop-on-worker"

// stopOnWorker waits for the stop sent to the host queue; when the worker
// that took it did not hold the command but named the queue of the one
// that does, it sends the stop there and returns that activity instead.
func (t *turn) stopOnWorker(dctx, sctx workflow.Context, stop workflow.Future, in activities.StopCommandInput) workflow.Future {
	var res activities.StopCommandOutput
	if err := stop.Get(dctx, &res); err != nil || res.Stopped || res.Queue == "" {
		return stop
	}
	o := workflow.GetActivityOptions(sctx)
	o.TaskQueue = res.Queue
	o.Summary = "stop command " + in.CallID + " on its worker"
	return workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, o), acts.StopCommand, in)
}
