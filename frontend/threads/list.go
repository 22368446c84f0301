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
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// ErrThreadArchived means the thread's workflow has completed: it was
// archived and takes no more turns.
var ErrThreadArchived = errors.New("thread is archived")

// ErrTurnRefused is a turn the thread refused as sent (a bad setting, an
// image the model cannot take): the client's error, not the server's.
var ErrTurnRefused = errors.New("turn refused")

// ListOptions filter [List].
type ListOptions struct {
	// Cwd keeps threads whose working directory is exactly this path.
	Cwd string
	// Status keeps threads with this status: in_progress, completed,
	// failed, interrupted (the last turn's), idle (no turn yet), or
	// archived.
	Status string
	// All includes closed threads (archived, terminated); by default only
	// open ones are listed. Status archived implies it.
	All bool
	// Limit bounds the answer (default 50).
	Limit int
	// SearchAttributes: the namespace has the thread search attributes, so
	// filters run in the visibility store. Without them the list is
	// filtered here, reading each open thread's status with a query.
	SearchAttributes bool
}

// Summary is one thread of [List].
type Summary struct {
	ThreadID     string    `json:"thread_id"`
	Title        string    `json:"title,omitempty"`
	Cwd          string    `json:"cwd,omitempty"`
	Model        string    `json:"model,omitempty"`
	Status       string    `json:"status"`
	Open         bool      `json:"open"`
	StartTime    time.Time `json:"start_time"`
	LastActivity time.Time `json:"last_activity"`
	// ParentThreadID, AgentNickname and AgentRole are set for a
	// sub-agent (from its workflow memo); Depth by [AsTree].
	ParentThreadID string `json:"parent_thread_id,omitempty"`
	AgentNickname  string `json:"agent_nickname,omitempty"`
	AgentRole      string `json:"agent_role,omitempty"`
	Depth          int    `json:"depth,omitempty"`
}

// visibilityString quotes a value for a visibility query.
func visibilityString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// List lists thread workflows from Temporal visibility, newest
// first, so it works against any cluster.
func List(ctx context.Context, c client.Client, o ListOptions) ([]Summary, error) {
	if o.Limit <= 0 {
		o.Limit = 50
	}
	all := o.All || o.Status == workflows.StatusArchived
	q := []string{"WorkflowType = 'ThreadWorkflow'"}
	if !all {
		q = append(q, "ExecutionStatus = 'Running'")
	}
	if o.SearchAttributes {
		if o.Cwd != "" {
			q = append(q, workflows.SACwd.GetName()+" = "+visibilityString(o.Cwd))
		}
		switch o.Status {
		case "":
		case StatusIdle:
			// No turn has ended, so none set the attribute.
			q = append(q, workflows.SAStatus.GetName()+" IS NULL")
		default:
			q = append(q, workflows.SAStatus.GetName()+" = "+visibilityString(o.Status))
		}
	}
	var out []Summary
	seen := map[string]bool{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: strings.Join(q, " AND "), PageSize: int32(min(o.Limit*2, 1000)), NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("listing threads: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id := e.GetExecution().GetWorkflowId()
			if e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW || seen[id] {
				continue
			}
			seen[id] = true
			s := summarize(e)
			if o.SearchAttributes && s.Open && s.Status == statusUnknown {
				// No status attribute (a sub-agent resumed, or a thread
				// started before they were set): ask the thread.
				if v, err := Read(ctx, c, id); err == nil {
					s.Status = viewStatus(v)
				}
				if o.Status != "" && s.Status != o.Status {
					continue
				}
			}
			if !o.SearchAttributes {
				if o.Cwd != "" && s.Cwd != o.Cwd {
					continue
				}
				if s.Open {
					if v, err := Read(ctx, c, id); err == nil {
						s.Status = viewStatus(v)
					}
				}
				if o.Status != "" && s.Status != o.Status {
					continue
				}
			}
			if s.Title == "" {
				// Started without a prompt, its first turn still running:
				// the title is that turn's prompt.
				if p, err := Prompt(ctx, c, workflows.TurnWorkflowID(id, 1)); err == nil {
					s.Title = workflows.OneLine(p, 200)
				}
			}
			out = append(out, s)
			if len(out) >= o.Limit {
				return out, nil
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return out, nil
		}
	}
}

// statusUnknown is the status of an open thread whose search attributes
// do not hold one.
const statusUnknown = "unknown"

// StatusIdle is the status of an open thread that has had no turn yet
// (app-server thread/start, thread/fork): nothing runs in it.
const StatusIdle = "idle"

// viewStatus is a thread's status as its search attribute holds it: the
// running turn's (in_progress) or the last finished turn's; idle before
// its first turn.
func viewStatus(v workflows.ThreadView) string {
	switch {
	case v.RunningTurn != "":
		return workflows.StatusInProgress
	case len(v.Turns) > 0:
		return v.Turns[len(v.Turns)-1].Status
	}
	return StatusIdle
}

// threadSummaryPrefix starts a thread's [workflows.SASummary]
// ([workflows.ThreadSummary]).
var threadSummaryPrefix = strings.TrimSuffix(workflows.ThreadSummary("x"), "x")

func summarize(e *workflowpb.WorkflowExecutionInfo) Summary {
	s := Summary{ThreadID: e.GetExecution().GetWorkflowId(), StartTime: e.GetStartTime().AsTime(),
		Open: e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING}
	decode := func(p *commonpb.Payload, v any) bool {
		return p != nil && converter.GetDefaultDataConverter().FromPayload(p, v) == nil
	}
	memo := e.GetMemo().GetFields()
	// A thread's name wins over its first prompt; a thread started
	// without a prompt (app-server) has its first turn's in its summary
	// attribute once that turn ended.
	if !decode(memo[workflows.MemoName], &s.Title) || s.Title == "" {
		decode(memo[workflows.MemoTitle], &s.Title)
	}
	decode(memo[workflows.MemoCwd], &s.Cwd)
	decode(memo[workflows.MemoParentThread], &s.ParentThreadID)
	decode(memo[workflows.MemoAgentNickname], &s.AgentNickname)
	decode(memo[workflows.MemoAgentRole], &s.AgentRole)
	sa := e.GetSearchAttributes().GetIndexedFields()
	decode(sa[workflows.SACwd.GetName()], &s.Cwd)
	decode(memo[workflows.MemoModel], &s.Model)
	decode(sa[workflows.SAModel.GetName()], &s.Model)
	decode(sa[workflows.SAStatus.GetName()], &s.Status)
	var summary string
	if s.Title == "" && decode(sa[workflows.SASummary.GetName()], &summary) {
		s.Title = strings.TrimPrefix(summary, threadSummaryPrefix)
	}
	if !decode(sa[workflows.SALastActivity.GetName()], &s.LastActivity) {
		s.LastActivity = s.StartTime
	}
	switch e.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		if s.Status == "" {
			s.Status = statusUnknown
		}
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		s.Status = workflows.StatusArchived
	default:
		// Terminated, failed, timed out or cancelled from outside.
		s.Status = strings.ToLower(e.GetStatus().String())
	}
	if ct := e.GetCloseTime(); ct != nil && !s.Open {
		s.LastActivity = ct.AsTime()
	}
	return s
}

// Archive archives an idle thread: its workflow completes. Archiving
// an archived thread is not an error.
func Archive(ctx context.Context, c client.Client, threadID string) error {
	err := whenTurnTakenIn(ctx, c, threadID, func() error {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: threadID, UpdateName: workflows.UpdateArchive, WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		return typed(err)
	})
	if err != nil && threadClosed(ctx, c, threadID) {
		return nil
	}
	return threadErr(threadID, err)
}

// whenTurnTakenIn calls call, and again while it is refused because of a
// turn that has in fact finished (its thread has not taken in the result
// yet), as Reply does.
func whenTurnTakenIn(ctx context.Context, c client.Client, threadID string, call func() error) error {
	settle(ctx, c, threadID)
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil || attempt >= 100 || !errors.Is(err, ErrTurnRunning) {
			return err
		}
		v, qerr := queryView(ctx, c, threadID)
		if qerr != nil || v.RunningTurn != "" && !turnClosed(ctx, c, v.RunningTurn) {
			return err
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// threadClosed tells whether a thread's workflow exists and has closed.
func threadClosed(ctx context.Context, c client.Client, threadID string) bool {
	d, err := c.DescribeWorkflowExecution(ctx, threadID, "")
	if err != nil {
		return false
	}
	st := d.GetWorkflowExecutionInfo().GetStatus()
	return st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && st != enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
}

// Open tells whether a thread's workflow runs (it takes turns).
func Open(ctx context.Context, c client.Client, threadID string) (bool, error) {
	d, err := c.DescribeWorkflowExecution(ctx, threadID, "")
	if err != nil {
		return false, threadErr(threadID, err)
	}
	return d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

// Compact compacts an idle thread's context now.
func Compact(ctx context.Context, c client.Client, threadID string) (workflows.CompactResponse, error) {
	var resp workflows.CompactResponse
	err := whenTurnTakenIn(ctx, c, threadID, func() error {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: threadID, UpdateName: workflows.UpdateCompact, WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			err = h.Get(ctx, &resp)
		}
		return typed(err)
	})
	if err != nil && threadClosed(ctx, c, threadID) {
		return resp, fmt.Errorf("%w: %s", ErrThreadArchived, threadID)
	}
	return resp, threadErr(threadID, err)
}

// Events reads a page of a turn's event log (the events after after)
// without waiting.
func Events(ctx context.Context, c client.Client, turnID string, after int) (workflows.EventsPage, error) {
	return readEvents(ctx, c, turnID, after)
}

// Prompt reads the prompt a turn started with, from the first event of
// its workflow's history.
func Prompt(ctx context.Context, c client.Client, turnID string) (string, error) {
	in, err := StartInput(ctx, c, turnID)
	return in.Prompt, err
}

// StartInput reads the input a turn started with (its prompt, its run
// kind), from the first event of its workflow's history.
func StartInput(ctx context.Context, c client.Client, turnID string) (workflows.TurnInput, error) {
	it := c.GetWorkflowHistory(ctx, turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return workflows.TurnInput{}, fmt.Errorf("turn %s has no history", turnID)
	}
	ev, err := it.Next()
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return workflows.TurnInput{}, fmt.Errorf("turn %s not found", turnID)
		}
		return workflows.TurnInput{}, err
	}
	p := ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	if len(p) == 0 {
		return workflows.TurnInput{}, fmt.Errorf("turn %s has no input", turnID)
	}
	var in workflows.TurnInput
	if err := converter.GetDefaultDataConverter().FromPayload(p[0], &in); err != nil {
		return workflows.TurnInput{}, fmt.Errorf("decoding the input of turn %s: %w", turnID, err)
	}
	return in, nil
}
