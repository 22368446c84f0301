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
	// off: a regular activity takes the same stream over on the same
	// worker (eager dispatch), with what only a regular activity gives:
	// the streamed text read from its heartbeats, a dead worker noticed
	// within the heartbeat timeout, and the turn's other messages (an
	// interrupt, a reader's wait) taken while it runs. When the regular
	// activity lands on another worker, or after a restart, it makes the
	// call afresh (model calls are retried whole anyway). Turns started
	// before turn code 2 run every call as a regular activity.
	ModelCallsAuto = ""
	// ModelCallsLocal runs every call as a local activity (as
	// LocalModelCalls does).
	ModelCallsLocal = "local"
	// ModelCallsActivity runs every call as a regular activity.
	ModelCallsActivity = "activity"
)

// modelCallBudget is how long a call waits in the workflow task: the
// delay it adds before a slow call's events and streamed text show.
const modelCallBudget = 250 * time.Millisecond

// localModelCall tells whether every model call runs as a local activity.
func (t *turn) localModelCall() bool {
	cfg := t.in.Config
	return cfg.LocalModelCalls || cfg.ModelCalls == ModelCallsLocal
}

// budgetedModelCall tells whether a call first waits in the workflow task.
func (t *turn) budgetedModelCall() bool {
	return t.in.Code >= 2 && t.in.Config.ModelCalls == ModelCallsAuto && !t.in.Config.LocalModelCalls
}

// callModelWithin makes the call as a local activity with the budget. It
// returns the answer, or a handoff to take over (Handoff set), or the
// error that ends the call; nil, nil leaves the call to a regular
// activity, which makes it afresh with its retries.
func (t *turn) callModelWithin(ctx workflow.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		Summary:             fmt.Sprintf("model %s · step %d", in.Model, in.Step),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	in.Budget = modelCallBudget
	var res activities.ModelOutput
	if err := workflow.ExecuteLocalActivity(lctx, acts.CallModel, in).Get(ctx, &res); err != nil {
		return nil, finalModelError(ctx, err)
	}
	return &res, nil
}

// resumeModelCall takes a handed-off call over on the worker that holds
// it. nil, nil: that worker is gone (the activity was not picked up in
// time) or the call failed in a way worth a fresh try.
func (t *turn) resumeModelCall(ctx workflow.Context, in activities.ModelInput, h *activities.ModelOutput) (*activities.ModelOutput, error) {
	hb := t.in.Config.ModelHeartbeat
	if hb <= 0 {
		hb = 5 * time.Second
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              h.HandoffQueue,
		ScheduleToStartTimeout: 10 * time.Second,
		StartToCloseTimeout:    10 * time.Minute,
		HeartbeatTimeout:       hb,
		Summary:                fmt.Sprintf("model %s · step %d (continued)", in.Model, in.Step),
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	in.Resume = h.Handoff
	var out activities.ModelOutput
	if err := workflow.ExecuteActivity(actx, acts.CallModel, in).Get(ctx, &out); err != nil {
		return nil, finalModelError(ctx, err)
	}
	return &out, nil
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
