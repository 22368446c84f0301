package workflows

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
)

// Client helpers for front ends that answer a turn's requests themselves
// (the app-server): dynamic tool calls, steering, thread names.

// PendingTurnApprovals lists the approvals a turn waits for.
func PendingTurnApprovals(ctx context.Context, c client.Client, turnID string) ([]Approval, error) {
	return turnApprovals(ctx, c, turnID)
}

// PendingDynamicCalls lists the dynamic tool calls a turn waits for.
func PendingDynamicCalls(ctx context.Context, c client.Client, turnID string) ([]DynamicCall, error) {
	val, err := c.QueryWorkflow(ctx, turnID, "", QueryDynamicCalls)
	if err != nil {
		return nil, err
	}
	var out []DynamicCall
	return out, val.Get(&out)
}

// AnswerDynamic delivers the answer to a pending dynamic tool call of a
// turn. The turn's validator refuses an answer for a call that is not
// pending (answered, timed out), leaving its state unchanged.
func AnswerDynamic(ctx context.Context, c client.Client, turnID string, a DynamicAnswer) error {
	if err := CheckToolResult(a); err != nil {
		return err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: turnID, UpdateName: UpdateAnswerDynamic, Args: []any{a},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", a.ItemID, err)
	}
	return h.Get(ctx, nil)
}

// SteerTurn adds input to a running turn; r.TurnID must be the turn the
// thread runs.
func SteerTurn(ctx context.Context, c client.Client, r SteerRequest) (SteerResponse, error) {
	var resp SteerResponse
	if err := CheckInput("Input", r.Prompt); err != nil {
		return resp, err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: r.TurnID, UpdateName: UpdateSteer, Args: []any{r},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return resp, err
	}
	return resp, h.Get(ctx, &resp)
}

// SetThreadName names a thread.
func SetThreadName(ctx context.Context, c client.Client, threadID, name string) error {
	if len(name) > maxThreadName {
		return fmt.Errorf("name is %d bytes long; the limit is %d", len(name), maxThreadName)
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: threadID, UpdateName: UpdateSetName, Args: []any{name},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return threadErr(threadID, err)
	}
	return h.Get(ctx, nil)
}

// ThreadStateOf reads a thread's whole state (also of an archived thread:
// the query replays its history).
func ThreadStateOf(ctx context.Context, c client.Client, threadID string) (ThreadState, error) {
	var st ThreadState
	val, err := c.QueryWorkflow(ctx, threadID, "", QueryThreadState)
	if err != nil {
		return st, threadErr(threadID, err)
	}
	return st, val.Get(&st)
}
