package appserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// The app-server backend's answers to a turn's requests (approvals,
// dynamic tool calls), steering, and thread names and archiving.

func (a *TemporalBackend) Pending(ctx context.Context, turnID string) (Pending, error) {
	var p Pending
	var err error
	if p.Approvals, err = threads.TurnApprovals(ctx, a.Client, turnID); err != nil {
		return p, fmt.Errorf("pending approvals of %s: %w", turnID, err)
	}
	if p.Dynamic, err = threads.DynamicCalls(ctx, a.Client, turnID); err != nil {
		return p, fmt.Errorf("pending dynamic tool calls of %s: %w", turnID, err)
	}
	return p, nil
}

func (a *TemporalBackend) Decide(ctx context.Context, turnID string, d workflows.ApprovalDecision) error {
	h, err := a.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: turnID, UpdateName: workflows.UpdateDecideApproval, Args: []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	return err
}

func (a *TemporalBackend) AnswerDynamic(ctx context.Context, turnID string, ans workflows.DynamicAnswer) error {
	return threads.AnswerDynamic(ctx, a.Client, turnID, ans)
}

// Steer sends the input to the turn; a turn its thread accepted a moment
// ago may not have started its workflow yet, so that is waited for.
func (a *TemporalBackend) Steer(ctx context.Context, threadID, turnID, prompt string) error {
	for attempt := 0; ; attempt++ {
		_, err := threads.Steer(ctx, a.Client, workflows.SteerRequest{ThreadID: threadID, TurnID: turnID, Prompt: prompt})
		var nf *serviceerror.NotFound
		if err == nil || !errors.As(err, &nf) || attempt >= 100 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (a *TemporalBackend) SetName(ctx context.Context, threadID, name string) error {
	err := threads.SetName(ctx, a.Client, threadID, name)
	if err != nil {
		if open, oerr := threads.Open(ctx, a.Client, threadID); oerr == nil && !open {
			return fmt.Errorf("%w: %s", threads.ErrThreadArchived, threadID)
		}
	}
	return err
}

func (a *TemporalBackend) Archive(ctx context.Context, threadID string) error {
	return threads.Archive(ctx, a.Client, threadID)
}

// Unarchive starts a new run of an archived thread's workflow, under the
// same id, from the state it was archived with (its query still answers
// once the run has completed), with the same memo.
func (a *TemporalBackend) Unarchive(ctx context.Context, threadID string) (ThreadInfo, error) {
	d, err := a.Client.DescribeWorkflowExecution(ctx, threadID, "")
	if err != nil {
		return ThreadInfo{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	ex := d.GetWorkflowExecutionInfo()
	switch ex.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return ThreadInfo{}, threads.Refusal(threads.ErrNotArchived, fmt.Sprintf("thread %s is not archived", threadID))
	default:
		return ThreadInfo{}, fmt.Errorf("thread %s was not archived but ended %s; it cannot be brought back",
			threadID, strings.ToLower(ex.GetStatus().String()))
	}
	st, err := threads.State(ctx, a.Client, threadID)
	if err != nil {
		return ThreadInfo{}, fmt.Errorf("reading the archived state of %s: %w", threadID, err)
	}
	memo := map[string]any{}
	for k, p := range ex.GetMemo().GetFields() {
		var v any
		if converter.GetDefaultDataConverter().FromPayload(p, &v) == nil {
			memo[k] = v
		}
	}
	tc := st.Config
	opts := client.StartWorkflowOptions{
		ID:                       threadID,
		TaskQueue:                a.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowTaskTimeout:      workflows.ThreadTaskTimeout,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            "thread (app-server, unarchived)",
		StaticDetails:            fmt.Sprintf("model `%s` · provider `%s` · cwd `%s`", tc.Model, tc.Provider.ID, tc.Cwd),
		Memo:                     memo,
	}
	if tc.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(workflows.SAModel.ValueSet(tc.Model), workflows.SACwd.ValueSet(tc.Cwd),
			workflows.SALastActivity.ValueSet(time.Now().UTC()), workflows.SAStatus.ValueSet(workflows.StatusCompleted))
	}
	st.Running, st.Queue = "", nil
	if _, err := a.Client.ExecuteWorkflow(ctx, opts, workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: threadID, State: &st}); err != nil {
		return ThreadInfo{}, fmt.Errorf("starting thread %s again: %w", threadID, err)
	}
	return a.Thread(ctx, threadID)
}

// Skills lists skills through the Settings when they can (skill discovery
// follows the configuration, which cmd owns); none otherwise.
func (a *TemporalBackend) Skills(ctx context.Context, cwd string) ([]SkillInfo, []string, error) {
	if sl, ok := a.Settings.(SkillLister); ok {
		return sl.Skills(ctx, cwd)
	}
	return nil, nil, nil
}

// Compact compacts an idle thread's context now (thread/compact/start).
func (a *TemporalBackend) Compact(ctx context.Context, threadID string) error {
	_, err := threads.Compact(ctx, a.Client, threadID)
	return err
}
