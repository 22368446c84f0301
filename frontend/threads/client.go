package threads

import (
	"context"
	"errors"
	"fmt"
	"github.com/interpreter-dev/interpreter/workflows"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// oneLine is s on one line, cut after max bytes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

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
		StaticSummary:            "thread: " + oneLine(req.Prompt, 100),
		StaticDetails:            fmt.Sprintf("model `%s` · provider `%s` · cwd `%s`", nt.Config.Model, nt.Config.Provider.ID, nt.Config.Cwd),
		Memo:                     map[string]any{"title": oneLine(req.Prompt, 200), "cwd": nt.Config.Cwd},
	}
	if nt.Config.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			workflows.SAModel.ValueSet(nt.Config.Model), workflows.SACwd.ValueSet(nt.Config.Cwd), workflows.SAStatus.ValueSet(workflows.StatusInProgress))
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
		return workflows.StartTurnResponse{}, fmt.Errorf("starting turn: %w", err)
	}
	return resp, nil
}

// Reply sends a turn to an existing thread. A turn that has just
// finished may still count as running for a moment (its thread has not yet
// taken in the result); Reply waits that moment out.
func Reply(ctx context.Context, c client.Client, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return workflows.StartTurnResponse{}, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := startTurnOnce(ctx, c, threadID, req)
		if err != nil && threadClosed(ctx, c, threadID) {
			return resp, fmt.Errorf("%w: %s", ErrThreadArchived, threadID)
		}
		if err == nil || attempt >= 100 || !strings.Contains(err.Error(), "is running turn") {
			return resp, err
		}
		v, qerr := Read(ctx, c, threadID)
		if qerr != nil || v.RunningTurn != "" && !turnClosed(ctx, c, v.RunningTurn) {
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
			return r, nil // failed or interrupted (turn code 4 on)
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
		return workflows.StartTurnResponse{}, threadErr(threadID, err)
	}
	var resp workflows.StartTurnResponse
	if err := h.Get(ctx, &resp); err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) && !strings.Contains(app.Message(), "is running turn") {
			return workflows.StartTurnResponse{}, fmt.Errorf("%w: %s", ErrTurnRefused, app.Message())
		}
		return workflows.StartTurnResponse{}, threadErr(threadID, err)
	}
	return resp, nil
}

// Read reads a thread's view (without its pending approvals: see
// [ReadWithApprovals]).
func Read(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	var v workflows.ThreadView
	if err := workflows.CheckThreadID(threadID); err != nil {
		return v, err
	}
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

// FollowTurn calls fn for every event of a turn after sequence number
// after, in order, until the turn ends or ctx is done. It survives worker
// restarts and the turn's continue-as-new; events dropped before a reader
// caught up are skipped (the page's First tells).
func FollowTurn(ctx context.Context, c client.Client, turnID string, after int, fn func(workflows.Event)) error {
	_, err := Follow(ctx, c, turnID, after, fn)
	return err
}

// Follow is [FollowTurn] that also returns the turn's result
// when it came with the last events (usually); nil means ask
// [Outcome].
//
// Events come with the answers of the wait update; a query of the log
// is the fallback when they are too big to carry, when the reader fell
// behind, or when the wait was refused and the closed run's result does
// not hold them.
func Follow(ctx context.Context, c client.Client, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	failed := 0  // waits refused in a row
	missing := 0 // waits answered "no such workflow" in a row
	for {
		w, why, err := waitEvents(ctx, c, turnID, after, failed)
		if err != nil {
			return nil, err
		}
		if why == waitMissing && missing < 250 {
			// The thread starts the turn's workflow right after accepting
			// the turn: ask again shortly, so that the wait reaches the
			// turn with its first workflow task.
			missing++
			if err := sleepCtx(ctx, 2*time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		missing = 0
		if w != nil && continues(w.Events, after, w.Last) {
			failed = 0
			for _, e := range w.Events {
				fn(e)
			}
			after = w.Last
			if w.Done {
				return w.Result, nil
			}
			continue
		}
		if w == nil {
			if res := closedResult(ctx, c, turnID, why == waitClosed); res != nil && tailFollows(res.Tail, after) {
				// The run closed while we waited: its result has the
				// last events, so no query has to replay it.
				for _, e := range res.Tail {
					if e.Seq > after {
						fn(e)
					}
				}
				res.Tail = nil
				return res, nil
			}
		}
		page, err := readEvents(ctx, c, turnID, after)
		if err != nil {
			return nil, err
		}
		for _, e := range page.Events {
			fn(e)
			after = e.Seq
		}
		if page.Done && after >= page.Last {
			return nil, nil
		}
		switch {
		case len(page.Events) > 0 || w != nil:
			failed = 0
		default:
			failed++
		}
	}
}

// continues tells whether events are all the events after seq after up to
// last.
func continues(events []workflows.Event, after, last int) bool {
	if len(events) == 0 {
		return false
	}
	return events[0].Seq == after+1 && events[len(events)-1].Seq == last
}

// tailFollows tells whether events continue a reader that has seen up to
// after and end the turn.
func tailFollows(events []workflows.Event, after int) bool {
	if len(events) == 0 || events[0].Seq > after+1 {
		return false
	}
	switch events[len(events)-1].Type {
	case workflows.EventTurnCompleted, workflows.EventTurnFailed:
		return true
	}
	return false
}

// closedResult is the result of the turn's current run when that run has
// ended with one: completed, or (from turn code 4 on) failed or canceled
// with it in the details; nil when it runs, continued as new, or ended
// otherwise. closed says the server already told that the run is over.
func closedResult(ctx context.Context, c client.Client, turnID string, closed bool) *workflows.TurnResult {
	if !closed {
		d, err := c.DescribeWorkflowExecution(ctx, turnID, "")
		if err != nil || !withResult(d.GetWorkflowExecutionInfo().GetStatus()) {
			// Still running (a read of its close event would wait for
			// it), continued as new, ended otherwise, or not there yet.
			return nil
		}
	}
	// Bounded: a read of the close event of a run that is in fact still
	// running waits for its end; the caller then reads the log instead.
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	it := c.GetWorkflowHistory(hctx, turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	if !it.HasNext() {
		return nil
	}
	ev, err := it.Next()
	if err != nil {
		return nil
	}
	return closeEventResult(ev)
}

// withResult tells whether a turn's run that closed so holds its result.
func withResult(st enumspb.WorkflowExecutionStatus) bool {
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return true
	}
	return false
}

// closeEventResult reads a turn's result from its run's close event.
func closeEventResult(ev *historypb.HistoryEvent) *workflows.TurnResult {
	var p *commonpb.Payloads
	switch {
	case ev.GetWorkflowExecutionCompletedEventAttributes() != nil:
		p = ev.GetWorkflowExecutionCompletedEventAttributes().GetResult()
	case ev.GetWorkflowExecutionFailedEventAttributes() != nil:
		err := temporal.GetDefaultFailureConverter().FailureToError(ev.GetWorkflowExecutionFailedEventAttributes().GetFailure())
		if res, ok := workflows.TurnResultOf(err); ok {
			return &res
		}
		return nil
	case ev.GetWorkflowExecutionCanceledEventAttributes() != nil:
		p = ev.GetWorkflowExecutionCanceledEventAttributes().GetDetails()
	}
	if len(p.GetPayloads()) == 0 {
		return nil
	}
	var res workflows.TurnResult
	if err := converter.GetDefaultDataConverter().FromPayload(p.GetPayloads()[0], &res); err != nil || res.TurnID == "" {
		return nil
	}
	return &res
}

func readEvents(ctx context.Context, c client.Client, turnID string, after int) (workflows.EventsPage, error) {
	var p workflows.EventsPage
	for attempt := 0; ; attempt++ {
		val, err := c.QueryWorkflow(ctx, turnID, "", workflows.QueryEvents, workflows.EventsRequest{After: after, Limit: 500})
		if err == nil {
			return p, val.Get(&p)
		}
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) && attempt < 500 {
			// The child may not have started yet.
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return p, err
			}
			continue
		}
		if queryTimedOut(ctx, err) && attempt < 100 {
			// A query waits for the workflow task in flight: a long model
			// call made as a local activity holds it, and the query's own
			// deadline may pass first. Ask again.
			continue
		}
		return p, fmt.Errorf("reading events of %s: %w", turnID, err)
	}
}

// queryTimedOut tells whether a query failed on its own deadline while the
// caller's context is still live.
func queryTimedOut(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &de) || errors.Is(err, context.DeadlineExceeded)
}

// waitHoldMs is how long a wait holds the turn's opening events for the
// model's first answer (see [workflows.WaitRequest.HoldMs]): longer than a fast
// model's answer, short enough that a reader of a slow one sees the turn
// start at once for practical purposes.
const waitHoldMs = 250

// Why a wait was refused.
const (
	waitAnswered = iota
	waitRefused  // busy, or continued as new
	waitClosed   // the run has ended for good
	waitMissing  // no such workflow (yet)
)

// waitEvents blocks until the turn's log grows past after. A nil answer
// means the wait was refused, and why says why. The caller reads again;
// after the first refusal in a row (failed > 0) only after a short pause,
// so a run that just closed costs no pause and a busy one is not
// hammered.
func waitEvents(ctx context.Context, c client.Client, turnID string, after, failed int) (w *workflows.WaitResponse, why int, err error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   turnID,
		UpdateName:   workflows.UpdateWaitEvents,
		Args:         []any{workflows.WaitRequest{After: after, TimeoutMs: 20000, HoldMs: waitHoldMs}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var resp workflows.WaitResponse
	if err == nil {
		err = h.Get(ctx, &resp)
	}
	if ctx.Err() != nil {
		return nil, waitRefused, ctx.Err()
	}
	if err == nil {
		return &resp, waitAnswered, nil
	}
	// The server's words for a run that has ended for good (not one that
	// continued as new, whose close event would be the next run's).
	msg := err.Error()
	var nf *serviceerror.NotFound
	switch {
	case strings.Contains(msg, "workflow execution already completed") || strings.Contains(msg, "aborted by closing workflow"):
		why = waitClosed
	case errors.As(err, &nf):
		return nil, waitMissing, nil
	default:
		why = waitRefused
	}
	if failed == 0 {
		return nil, why, nil
	}
	return nil, why, sleepCtx(ctx, 50*time.Millisecond)
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
