package threads

import (
	"context"
	"fmt"
	"github.com/interpreter-dev/interpreter/workflows"

	"go.temporal.io/sdk/client"
)

// Client helpers for front ends that answer a turn's requests themselves
// (the app-server): dynamic tool calls, steering, thread names.

// TurnApprovals lists the approvals a turn waits for.
func TurnApprovals(ctx context.Context, c client.Client, turnID string) ([]workflows.Approval, error) {
	return turnApprovals(ctx, c, turnID)
}

// DynamicCalls lists the dynamic tool calls a turn waits for.
func DynamicCalls(ctx context.Context, c client.Client, turnID string) ([]workflows.DynamicCall, error) {
	val, err := c.QueryWorkflow(ctx, turnID, "", workflows.QueryDynamicCalls)
	if err != nil {
		return nil, err
	}
	var out []workflows.DynamicCall
	return out, val.Get(&out)
}

// AnswerDynamic delivers the answer to a pending dynamic tool call of a
// turn. The turn's validator refuses an answer for a call that is not
// pending (answered, timed out), leaving its state unchanged.
func AnswerDynamic(ctx context.Context, c client.Client, turnID string, a workflows.DynamicAnswer) error {
	if err := workflows.CheckToolResult(a); err != nil {
		return err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: turnID, UpdateName: workflows.UpdateAnswerDynamic, Args: []any{a},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", a.ItemID, err)
	}
	return h.Get(ctx, nil)
}

// Steer adds input to a running turn; r.TurnID must be the turn the
// thread runs.
func Steer(ctx context.Context, c client.Client, r workflows.SteerRequest) (workflows.SteerResponse, error) {
	var resp workflows.SteerResponse
	if err := workflows.CheckInput("Input", r.Prompt); err != nil {
		return resp, err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: r.TurnID, UpdateName: workflows.UpdateSteer, Args: []any{r},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, &resp)
	}
	return resp, steerErr(ctx, c, r.TurnID, err)
}

// steerErr is the error of a steer: a turn whose workflow has closed
// takes none, and that is no active turn, whatever the server said.
func steerErr(ctx context.Context, c client.Client, turnID string, err error) error {
	if err = typed(err); err != nil && refusalKind(err) == nil && turnClosed(ctx, c, turnID) {
		return Refusal(ErrNoActiveTurn, "no active turn to steer")
	}
	return err
}

// SetName names a thread.
func SetName(ctx context.Context, c client.Client, threadID, name string) error {
	if err := workflows.CheckThreadName(name); err != nil {
		return typed(err)
	}
	settle(ctx, c, threadID)
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: threadID, UpdateName: workflows.UpdateSetName, Args: []any{name},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return threadErr(threadID, typed(err))
	}
	return typed(h.Get(ctx, nil))
}

// State reads a thread's whole state (also of an archived thread:
// the query replays its history), with a turn's end seen here taken in.
func State(ctx context.Context, c client.Client, threadID string) (workflows.ThreadState, error) {
	var st workflows.ThreadState
	settle(ctx, c, threadID)
	val, err := c.QueryWorkflow(ctx, threadID, "", workflows.QueryThreadState)
	if err != nil {
		return st, threadErr(threadID, err)
	}
	return st, val.Get(&st)
}

// InjectItems adds entries to an idle thread's model-visible history; its
// next turn sends them before its prompt.
func InjectItems(ctx context.Context, c client.Client, threadID string, entries []workflows.Entry) error {
	err := whenTurnTakenIn(ctx, c, threadID, func() error {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: threadID, UpdateName: workflows.UpdateInjectItems, Args: []any{workflows.InjectItemsRequest{Entries: entries}},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		return typed(err)
	})
	if err != nil && threadClosed(ctx, c, threadID) {
		return fmt.Errorf("%w: %s", ErrThreadArchived, threadID)
	}
	return threadErr(threadID, err)
}
