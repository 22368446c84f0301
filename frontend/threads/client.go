package threads

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// ErrThreadNotFound means no thread workflow has the given id.
var ErrThreadNotFound = errors.New("thread not found")

// NewThread describes a thread to create with its first turn.
type NewThread struct {
	ThreadID  string
	TaskQueue string
	Config    workflows.ThreadConfig
}

// Start creates a thread workflow and sends its first turn in one
// call (update-with-start), so there is never a thread without its turn.
func Start(ctx context.Context, c client.Client, nt NewThread, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if err := workflows.CheckThreadStart(nt.Config, req.Prompt); err != nil {
		return workflows.StartTurnResponse{}, err
	}
	opts := client.StartWorkflowOptions{
		ID:                       nt.ThreadID,
		TaskQueue:                nt.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowTaskTimeout:      workflows.ThreadTaskTimeout,
		StaticSummary:            workflows.ThreadSummary(req.Prompt),
		StaticDetails:            fmt.Sprintf("model `%s` · provider `%s` · cwd `%s`", nt.Config.Model, nt.Config.Provider.ID, nt.Config.Cwd) + workflows.KindDetails(req.RunKind),
		Memo:                     map[string]any{workflows.MemoTitle: workflows.OneLine(req.Prompt, 200), workflows.MemoCwd: nt.Config.Cwd},
		Priority:                 workflows.ThreadPriority(nt.ThreadID),
	}
	if nt.Config.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			workflows.SAModel.ValueSet(nt.Config.Model), workflows.SACwd.ValueSet(nt.Config.Cwd), workflows.SAStatus.ValueSet(workflows.StatusInProgress),
			workflows.SASummary.ValueSet(workflows.ThreadSummary(req.Prompt)))
	}
	op := c.NewWithStartWorkflowOperation(opts, workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: nt.ThreadID, Config: nt.Config})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   workflows.UpdateStartTurn,
			Args:         []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return workflows.StartTurnResponse{}, fmt.Errorf("starting thread: %w", err)
	}
	var resp workflows.StartTurnResponse
	if err := h.Get(ctx, &resp); err != nil {
		return workflows.StartTurnResponse{}, fmt.Errorf("starting turn: %w", typed(err))
	}
	return resp, nil
}

// Reply sends a turn to an existing thread. A turn that has just
// finished may still count as running for a moment (its thread has not yet
// taken in the result): one whose end a follower here saw is named, and
// the thread queues the reply behind it; otherwise Reply waits that
// moment out.
func Reply(ctx context.Context, c client.Client, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return workflows.StartTurnResponse{}, err
	}
	if req.After == "" {
		req.After = endedTurn(threadID)
	}
	for attempt := 0; ; attempt++ {
		resp, err := startTurnOnce(ctx, c, threadID, req)
		if err != nil && threadClosed(ctx, c, threadID) {
			return resp, fmt.Errorf("%w: %s", ErrThreadArchived, threadID)
		}
		if err == nil || attempt >= 100 || !errors.Is(err, ErrTurnRunning) {
			return resp, err
		}
		v, qerr := queryView(ctx, c, threadID)
		if qerr != nil || v.RunningTurn != "" && !turnOver(ctx, c, v.RunningTurn) {
			return resp, err
		}
		if err := sleepCtx(ctx, retryPause(attempt)); err != nil {
			return resp, err
		}
	}
}

// retryPause paces asking a thread again for a turn whose predecessor has
// ended: usually the thread takes in the end within a workflow task, so
// the first retry goes at once.
func retryPause(attempt int) time.Duration {
	switch attempt {
	case 0:
		return 0
	case 1:
		return 5 * time.Millisecond
	}
	return 20 * time.Millisecond
}

// turnOver tells whether a turn has ended: its run closed, or its log
// shows the end (followers are answered then, a workflow task before the
// close), in which case it waits for the close.
func turnOver(ctx context.Context, c client.Client, turnID string) bool {
	if turnClosed(ctx, c, turnID) {
		return true
	}
	p, closed, err := readOpenEvents(ctx, c, turnID, math.MaxInt32, true)
	if err != nil || !closed && !p.Done {
		return false
	}
	// Its result or error is the follower's business; this waits only
	// for the run to close (a continued run has a new one: ask again).
	_ = c.GetWorkflow(ctx, turnID, "").Get(ctx, nil)
	return ctx.Err() == nil
}

func turnClosed(ctx context.Context, c client.Client, turnID string) bool {
	d, err := c.DescribeWorkflowExecution(ctx, turnID, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// Outcome waits for a turn's result, following its runs across
// continue-as-new.
func Outcome(ctx context.Context, c client.Client, turnID string) (workflows.TurnResult, error) {
	var res workflows.TurnResult
	for {
		err := c.GetWorkflow(ctx, turnID, "").Get(ctx, &res)
		if r, ok := workflows.TurnResultOf(err); ok {
			noteEnded(turnID)
			return r, nil // failed or interrupted: the result travels in the error
		}
		if err == nil {
			noteEnded(turnID)
		}
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			// The thread starts the child right after accepting the turn.
			if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
				return res, err
			}
			continue
		}
		return res, err
	}
}

func startTurnOnce(ctx context.Context, c client.Client, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if err := workflows.CheckInput("Input", req.Prompt); err != nil {
		return workflows.StartTurnResponse{}, err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   threadID,
		UpdateName:   workflows.UpdateStartTurn,
		Args:         []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return workflows.StartTurnResponse{}, threadErr(threadID, typed(err))
	}
	var resp workflows.StartTurnResponse
	if err := h.Get(ctx, &resp); err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) && !errors.Is(typed(err), ErrTurnRunning) {
			// The client's error; it keeps its kind (a turn waiting to
			// start, the thread compacting) for callers that wait.
			refused := fmt.Errorf("%w: %s", ErrTurnRefused, app.Message())
			if kind := refusalKind(err); kind == ErrTurnWaiting || kind == ErrCompacting {
				return workflows.StartTurnResponse{}, &refusal{kind: kind, msg: refused.Error(), cause: ErrTurnRefused}
			}
			return workflows.StartTurnResponse{}, refused
		}
		return workflows.StartTurnResponse{}, threadErr(threadID, typed(err))
	}
	tookInQuick(threadID, resp)
	return resp, nil
}

// Read reads a thread's view (without its pending approvals: see
// [ReadWithApprovals]); one read right after a turn's end seen here
// shows that end taken in (ended.go).
func Read(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return workflows.ThreadView{}, err
	}
	return settledView(ctx, c, threadID)
}

// ReadNow reads a thread's view as the thread shows it now, without
// waiting for it to take in a turn's end seen here (a turn that has
// just ended may still show as running).
func ReadNow(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return workflows.ThreadView{}, err
	}
	return queryView(ctx, c, threadID)
}

// queryView reads the thread's view as the thread shows it now.
func queryView(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	var v workflows.ThreadView
	val, err := c.QueryWorkflow(ctx, threadID, "", workflows.QueryThread)
	if err != nil {
		return v, threadErr(threadID, err)
	}
	return v, val.Get(&v)
}

// ReadWithApprovals reads a thread's view with the pending approvals
// of its running turn. The turn answers the query between its workflow
// tasks, so this may wait while a (local) model call runs.
func ReadWithApprovals(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	v, err := Read(ctx, c, threadID)
	if err != nil || v.RunningTurn == "" {
		return v, err
	}
	v.PendingApprovals, err = turnApprovals(ctx, c, v.RunningTurn)
	return v, err
}

// PendingApprovals lists what a thread's running turn waits for.
func PendingApprovals(ctx context.Context, c client.Client, threadID string) ([]workflows.Approval, error) {
	v, err := ReadWithApprovals(ctx, c, threadID)
	return v.PendingApprovals, err
}

func turnApprovals(ctx context.Context, c client.Client, turnID string) ([]workflows.Approval, error) {
	val, err := c.QueryWorkflow(ctx, turnID, "", workflows.QueryApprovals)
	if err != nil {
		return nil, err
	}
	var out []workflows.Approval
	return out, val.Get(&out)
}

// ErrNoPendingApproval means a decision found nothing waiting for it.
var ErrNoPendingApproval = errors.New("no approval is pending")

// Decide delivers a decision to the turn of d.ThreadID that waits
// for it. The turn's validator refuses a decision for an item that is not
// pending (the error says which are), leaving its state unchanged.
func Decide(ctx context.Context, c client.Client, d workflows.ApprovalDecision) (workflows.ApprovalResult, error) {
	v, err := Read(ctx, c, d.ThreadID)
	if err != nil {
		return workflows.ApprovalResult{}, err
	}
	if v.RunningTurn == "" {
		return workflows.ApprovalResult{}, fmt.Errorf("%w: thread %s has no running turn", ErrNoPendingApproval, d.ThreadID)
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   v.RunningTurn,
		UpdateName:   workflows.UpdateDecideApproval,
		Args:         []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return workflows.ApprovalResult{}, fmt.Errorf("%s: %w", d.ItemID, err)
	}
	var res workflows.ApprovalResult
	if err := h.Get(ctx, &res); err != nil {
		return workflows.ApprovalResult{}, err
	}
	return res, nil
}

// Interrupt asks the thread to stop its running turn.
func Interrupt(ctx context.Context, c client.Client, threadID string) error {
	return threadErr(threadID, c.SignalWorkflow(ctx, threadID, "", workflows.SignalInterrupt, nil))
}

// sleepCtx paces the client helpers' retries. This file is client code
// (front ends call it through the Temporal client); no workflow function
// reaches it, which workflowcheck checks in CI.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func threadErr(threadID string, err error) error {
	if err == nil {
		return nil
	}
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w: %s", ErrThreadNotFound, threadID)
	}
	return err
}

// NewID is a new thread id: a UUID v7, so ids sort by creation time.
func NewID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}
