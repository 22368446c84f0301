package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// A handed-off model call streams on the one worker process that started
// it, on a task queue only that process polls. When that process dies the
// server finds out by the call's heartbeat timeout; what happens next
// decides how long the turn stands still. Left to the workflow, the
// timeout is a workflow task on the dead worker's sticky queue (a second
// more before the shared queue gets it) and then a fresh activity. So the
// holder, as it takes the call over, asks the server to send a further
// attempt to the shared queue ([Failover.Retarget]): the server then
// retries a lost call on a live worker by itself, right after the
// timeout, with no workflow task in between. The worker that makes that
// attempt has no stream to take over and calls afresh; it also resets the
// turn's sticky queue ([Failover.Unstick]), so the answer's workflow task
// does not wait on the dead worker either.

// Failover is what a model call needs of the Temporal client to survive
// its worker (the worker fills it in; nil: no failover, the workflow
// makes a lost call afresh after the timeout).
type Failover interface {
	// Retarget sends a further attempt of the running activity to queue,
	// right after a timeout of this one.
	Retarget(ctx context.Context, info activity.Info, queue string) error
	// Unstick sends the workflow's next workflow task to its normal
	// queue, away from the sticky queue of the worker that ran it last.
	Unstick(ctx context.Context, workflowID, runID string) error
}

// ErrTypeModelCall marks a failed model call whose error had no type of
// its own (a store write, say): like the other types the workflow counts
// the attempt itself ([ModelAttemptErrorTypes]).
const ErrTypeModelCall = "ModelCallError"

// ModelAttemptErrorTypes are the error types of a failed model call. The
// workflow lists them as not to be retried by the server: only a call
// whose worker was lost (a timeout) is tried again there; a call that
// failed is counted and retried by the workflow, with its model.retry
// event.
var ModelAttemptErrorTypes = []string{ErrTypeProvider, ErrTypeStream, ErrTypeConnection, ErrTypeConfig, ErrTypeModelCall}

// armFailover asks the server to send the call's next attempt, should
// this worker be lost, to in.FailoverQueue. A failure to ask costs only
// the quick failover: the workflow still makes a lost call afresh.
func (a *Activities) armFailover(ctx context.Context, in ModelInput) {
	if in.FailoverQueue == "" || a.Failover == nil || !activity.IsActivity(ctx) {
		return
	}
	// A call that ended meanwhile has nothing left to arm.
	if err := a.Failover.Retarget(ctx, activity.GetInfo(ctx), in.FailoverQueue); err != nil && ctx.Err() == nil {
		activity.GetLogger(ctx).Warn("model call: cannot arm its failover", "error", err)
	}
}

// tookOverLost tells whether this attempt runs because the worker that
// held the call was lost (a retry the server sent here), and if so resets
// the turn's sticky queue, which still names that worker.
func (a *Activities) tookOverLost(ctx context.Context, in ModelInput) {
	if in.FailoverQueue == "" || a.Failover == nil || !activity.IsActivity(ctx) {
		return
	}
	info := activity.GetInfo(ctx)
	if info.Attempt < 2 {
		return
	}
	if err := a.Failover.Unstick(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID); err != nil {
		activity.GetLogger(ctx).Warn("model call: cannot reset the turn's sticky queue", "error", err)
	}
}

// attemptError gives a failed call's error a type the workflow lists as
// not to be retried by the server (see [ModelAttemptErrorTypes]); a
// cancellation stays as it is.
func attemptError(err error) error {
	var app *temporal.ApplicationError
	if err == nil || errors.As(err, &app) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return temporal.NewApplicationError(err.Error(), ErrTypeModelCall)
}
