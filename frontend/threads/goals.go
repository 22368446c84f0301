package threads

import (
	"context"
	"errors"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// ErrGoalRefused: a thread refused a goal change (goals off, no goal, a
// status or budget that is not valid); the error's text says why.
var ErrGoalRefused = errors.New("goal change refused")

// SetGoal creates or changes a thread's goal and returns it as it is
// then. An active goal on an idle thread starts a turn at once.
func SetGoal(ctx context.Context, c client.Client, threadID string, r workflows.GoalSetRequest) (workflows.Goal, error) {
	var g workflows.Goal
	if err := workflows.CheckThreadID(threadID); err != nil {
		return g, err
	}
	settle(ctx, c, threadID)
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: threadID, UpdateName: workflows.UpdateSetGoal, Args: []any{r},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return g, threadErr(threadID, goalErr(err))
	}
	return g, goalErr(h.Get(ctx, &g))
}

// ClearGoal removes a thread's goal; it reports whether there was one.
func ClearGoal(ctx context.Context, c client.Client, threadID string) (bool, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return false, err
	}
	settle(ctx, c, threadID)
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: threadID, UpdateName: workflows.UpdateClearGoal,
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return false, threadErr(threadID, goalErr(err))
	}
	var cleared bool
	return cleared, goalErr(h.Get(ctx, &cleared))
}

// ReadGoal reads a thread's goal (nil: none).
func ReadGoal(ctx context.Context, c client.Client, threadID string) (*workflows.Goal, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return nil, err
	}
	settle(ctx, c, threadID)
	val, err := c.QueryWorkflow(ctx, threadID, "", workflows.QueryGoal)
	if err != nil {
		return nil, threadErr(threadID, err)
	}
	var g *workflows.Goal
	return g, val.Get(&g)
}

// goalErr turns a thread's refusal of a goal change into an
// ErrGoalRefused (or the refusal kinds every update shares) with the
// thread's message as its text.
func goalErr(err error) error {
	var app *temporal.ApplicationError
	if err == nil || !errors.As(err, &app) {
		return err
	}
	switch app.Type() {
	case workflows.ErrGoalsOff, workflows.ErrNoGoal, workflows.ErrBadGoal:
		return &refusal{kind: ErrGoalRefused, msg: app.Message()}
	}
	return typed(err)
}
