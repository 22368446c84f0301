package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// How a turn runs its model calls ([ThreadConfig.ModelCalls]).
const (
	// ModelCallsAuto starts each call as a local activity, inside the
	// turn's workflow task, and waits [modelCallBudget] for the answer. A
	// fast model (a local one, a small one, the fake model of the tests)
	// is then answered without an activity dispatch or a second workflow
	// task. A call still streaming when the budget runs out is handed
	// off: a regular activity on a task queue only that worker process
	// polls ([activities.Activities.HandoffQueue]) takes the same stream
	// over, with what only a regular activity gives: the streamed text
	// read from its heartbeats, a dead worker noticed within the
	// heartbeat timeout, and the turn's other messages (an interrupt, a
	// reader's wait) taken while it runs. When that worker is gone (the
	// activity is not picked up within [handoffPickup]) or the take-over
	// fails in a way worth another try, the call is made afresh on the
	// shared queue (model calls are retried whole anyway).
	ModelCallsAuto = ""
	// ModelCallsLocal runs every call as a local activity (as
	// LocalModelCalls does).
	ModelCallsLocal = "local"
	// ModelCallsActivity runs every call as a regular activity.
	ModelCallsActivity = "activity"
)

// modelCallBudget is how long a call waits in the workflow task: a slow
// call's streamed text shows that much later, and the turn's opening
// events (held for the first answer, see [WaitRequest.HoldMs]) about
// twice that.
const modelCallBudget = 250 * time.Millisecond

// localModelCall tells whether every model call runs as a local activity.
func (t *turn) localModelCall() bool {
	cfg := t.in.Config
	return cfg.LocalModelCalls || cfg.ModelCalls == ModelCallsLocal
}

// budgetedModelCall tells whether a call first waits in the workflow task.
func (t *turn) budgetedModelCall() bool {
	return t.in.Config.ModelCalls == ModelCallsAuto && !t.in.Config.LocalModelCalls
}

// callModelWithin makes the call as a local activity with the budget. It
// returns the answer, or a handoff to take over (Handoff set), or the
// error that ends the call; nil, nil leaves the call to a regular
// activity, which makes it afresh with its retries.
func (t *turn) callModelWithin(ctx workflow.Context, in activities.ModelInput, budget time.Duration) (*activities.ModelOutput, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		Summary:             fmt.Sprintf("model %s · step %d", in.Model, in.Step),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	in.Budget = budget
	var res activities.ModelOutput
	err := workflow.ExecuteLocalActivity(lctx, acts.CallModel, in).Get(ctx, &res)
	t.noteLocalCall(ctx)
	if err != nil {
		return nil, err // the attempt failed; the caller counts it
	}
	t.taskBudget(workflow.GetInfo(ctx).GetCurrentHistoryLength()).modelMs += res.ElapsedMs
	return &res, nil
}

// takeOver goes on with a handed-off call: on the worker that holds it
// when the handoff names its queue, and else as a regular activity on the
// shared queue (which makes the call afresh when it lands elsewhere). When
// the holding worker is gone (the activity is not picked up in time), or
// the call fails in a way worth a fresh try, it is made afresh.
func (t *turn) takeOver(ctx workflow.Context, in activities.ModelInput, h *activities.ModelOutput) (*activities.ModelOutput, error) {
	if h.HandoffQueue == "" {
		in.Resume = h.Handoff
		return t.callModelActivity(ctx, in)
	}
	opts := workflow.ActivityOptions{
		TaskQueue:              h.HandoffQueue,
		ScheduleToStartTimeout: t.handoffPickup(),
		StartToCloseTimeout:    10 * time.Minute,
		HeartbeatTimeout:       t.modelHeartbeat(),
		Summary:                fmt.Sprintf("model %s · step %d (continued)", in.Model, in.Step),
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	resume := in
	resume.Resume = h.Handoff
	t.armFailover(ctx, &opts, &resume)
	actx := workflow.WithActivityOptions(ctx, opts)
	var out activities.ModelOutput
	err := workflow.ExecuteActivity(actx, acts.CallModel, resume).Get(ctx, &out)
	if err == nil {
		return &out, nil
	}
	if err := finalModelError(ctx, err); err != nil {
		return nil, err
	}
	if !isTimeout(err) {
		return nil, err // the call itself failed: an attempt the caller counts
	}
	return t.callModelActivity(ctx, in)
}

// callModelActivity makes the call as a regular activity on the shared
// queue, with heartbeats (the streamed text).
func (t *turn) callModelActivity(ctx workflow.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    t.modelHeartbeat(),
		Summary:             fmt.Sprintf("model %s · step %d", in.Model, in.Step),
		RetryPolicy:         t.retryPolicy(),
	})
	var out activities.ModelOutput
	if err := workflow.ExecuteActivity(actx, acts.CallModel, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// callModelLocally makes the call as a local activity, retried in place.
func (t *turn) callModelLocally(ctx workflow.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		Summary:             fmt.Sprintf("model %s · step %d", in.Model, in.Step),
		RetryPolicy:         t.retryPolicy(),
	})
	var out activities.ModelOutput
	err := workflow.ExecuteLocalActivity(lctx, acts.CallModel, in).Get(ctx, &out)
	t.noteLocalCall(ctx)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func (t *turn) modelHeartbeat() time.Duration {
	if hb := t.in.Config.ModelHeartbeat; hb > 0 {
		return hb
	}
	return modelHeartbeat
}

// modelHeartbeat is how long a model call's worker may go without a
// heartbeat before the call is taken for lost. The worker heartbeats four times as often, and a model call
// runs seconds, not hours, so the beats cost little; a lost worker costs
// the turn about this long.
const modelHeartbeat = 2 * time.Second

// handoffPickup bounds how long a handed-off call waits on its worker's
// own queue before it is made afresh: that
// queue's pollers are idle but for such calls, so a live worker takes it
// in milliseconds.
const handoffPickup = 2 * time.Second

func (t *turn) handoffPickup() time.Duration {
	return handoffPickup
}

// finalModelError keeps the errors that end a model call (the turn was
// interrupted, or the provider refused for good) and drops the others,
// which a fresh call with the full retry policy may overcome.
func finalModelError(ctx workflow.Context, err error) error {
	var app *temporal.ApplicationError
	if ctx.Err() != nil || errors.As(err, &app) && app.NonRetryable() {
		return err
	}
	return nil
}
