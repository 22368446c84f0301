package threads

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// AutomationTurns runs an automation's turns: it is the
// [workflows.AutomationTurns] a worker process hands its automation
// activity, so a scheduled turn starts as a front end's does.
type AutomationTurns struct {
	Client client.Client
}

// RunTurn sends the run's turn to its thread (creating the thread with
// it when there is none yet) and waits for the turn's end, heartbeating.
// The update carries the run's id, so a retry after a lost worker finds
// the turn it sent instead of sending another.
func (t AutomationTurns) RunTurn(ctx context.Context, in workflows.AutomationTurnInput) (workflows.AutomationRun, error) {
	run := workflows.AutomationRun{ThreadID: in.ThreadID}
	resp, err := t.send(ctx, in)
	switch {
	case errors.Is(err, ErrTurnRunning) || errors.Is(err, ErrTurnWaiting) || errors.Is(err, ErrCompacting):
		run.Status = workflows.AutomationBusy
		run.Error = "the thread was busy (" + err.Error() + "): this run sent no turn"
		return run, nil
	case err != nil:
		return run, err
	}
	run.TurnID = resp.TurnID
	stop := heartbeatWhile(ctx, resp.TurnID)
	defer stop()
	res, err := Outcome(ctx, t.Client, resp.TurnID)
	if err != nil {
		return run, fmt.Errorf("waiting for turn %s: %w", resp.TurnID, err)
	}
	run.Status, run.Error, run.FinalMessage = res.Status, res.Error, res.FinalMessage
	return run, nil
}

// send is [Start] for a thread that may already run: the thread is
// created with the turn when it does not exist, and otherwise gets it
// as any reply does. A thread that ended (archived) is not started again
// under the same id.
func (t AutomationTurns) send(ctx context.Context, in workflows.AutomationTurnInput) (workflows.StartTurnResponse, error) {
	spec := in.Spec
	req := automationRequest(spec)
	if err := workflows.CheckThreadStart(spec.Config, req.Prompt); err != nil {
		return workflows.StartTurnResponse{}, temporal.NewNonRetryableApplicationError(err.Error(), "BadAutomation", nil)
	}
	cfg := spec.Config
	opts := client.StartWorkflowOptions{
		ID:                       in.ThreadID,
		TaskQueue:                spec.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowTaskTimeout:      workflows.ThreadTaskTimeout,
		StaticSummary:            "automation " + spec.Name + ": " + workflows.ThreadSummary(req.Prompt),
		StaticDetails:            fmt.Sprintf("automation `%s` · model `%s` · cwd `%s`", spec.Name, cfg.Model, cfg.Cwd),
		Memo:                     map[string]any{workflows.MemoTitle: "automation " + spec.Name + ": " + workflows.OneLine(req.Prompt, 180), workflows.MemoCwd: cfg.Cwd},
		Priority:                 workflows.ThreadPriority(in.ThreadID),
	}
	if cfg.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			workflows.SAModel.ValueSet(cfg.Model), workflows.SACwd.ValueSet(cfg.Cwd), workflows.SAStatus.ValueSet(workflows.StatusInProgress),
			workflows.SASummary.ValueSet(workflows.ThreadSummary(req.Prompt)))
	}
	op := t.Client.NewWithStartWorkflowOperation(opts, workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: in.ThreadID, Config: cfg})
	h, err := t.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateID:     in.RequestID,
			UpdateName:   workflows.UpdateStartTurn,
			Args:         []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) || temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return workflows.StartTurnResponse{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the automation's thread %s has ended (archived): remove the automation and add it again, or add it with --new-thread", in.ThreadID), "ThreadEnded", nil)
	}
	if err != nil {
		return workflows.StartTurnResponse{}, fmt.Errorf("starting the turn: %w", typed(err))
	}
	var resp workflows.StartTurnResponse
	if err := h.Get(ctx, &resp); err != nil {
		var app *temporal.ApplicationError
		if kind := refusalKind(err); kind == nil && errors.As(err, &app) {
			// The thread refused the turn for good (a bad setting).
			return resp, temporal.NewNonRetryableApplicationError("the thread refused the turn: "+app.Message(), "TurnRefused", nil)
		}
		return resp, fmt.Errorf("starting the turn: %w", typed(err))
	}
	return resp, nil
}

// automationRequest is the turn a prompt run sends: a background job's
// (nobody watches it), for which skills it is offered.
func automationRequest(spec workflows.AutomationSpec) workflows.StartTurnRequest {
	return workflows.StartTurnRequest{Prompt: spec.Prompt, RunKind: workflows.RunKindBackgroundJob}
}

// heartbeatWhile keeps the activity alive while it waits for the turn
// (Outcome blocks in a long poll).
func heartbeatWhile(ctx context.Context, turnID string) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			activity.RecordHeartbeat(ctx, turnID)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}
