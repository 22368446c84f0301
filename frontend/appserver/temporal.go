package appserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TemporalBackend is the app-server's [Backend] over a Temporal client,
// through package threads; what depends on the configuration comes from
// Settings.
type TemporalBackend struct {
	Client    client.Client
	TaskQueue string
	Namespace string
	// SearchAttributes: the namespace has the thread search attributes.
	SearchAttributes bool
	Settings         Settings
	// Terminals opens the pseudo-terminals of command/exec with tty; nil:
	// no terminals, such a request is refused.
	Terminals Terminals
	// Blobs is the transcript store thread/delete sweeps (nil: blobs stay).
	Blobs threads.BlobStore
}

// Terminals opens and resizes pseudo-terminals (cmd/interpreter passes
// the sandbox's, the ones unified-exec sessions use).
type Terminals interface {
	Open(rows, cols int) (master, slave *os.File, err error)
	Resize(master *os.File, rows, cols int) error
}

var _ Backend = (*TemporalBackend)(nil)

// Settings answers from the configuration (cmd/interpreter holds it).
type Settings interface {
	// Resolve builds a thread's config from the server's configuration
	// and a client's settings; a *[SettingsError] is the client's fault.
	Resolve(s ThreadSettings) (workflows.ThreadConfig, error)
	// Models lists the models a client may pick (model/list).
	Models() ([]ModelInfo, error)
	// Config is the effective configuration (config/read).
	Config() (map[string]any, error)
	// InstructionSources are the instructions files a turn of tc would
	// read.
	InstructionSources(tc workflows.ThreadConfig) []string
}

// Models lists the configured models.
func (a *TemporalBackend) Models(context.Context) ([]ModelInfo, error) { return a.Settings.Models() }

// Config reads the effective configuration.
func (a *TemporalBackend) Config(context.Context) (map[string]any, error) { return a.Settings.Config() }

// resolve is Settings.Resolve with the thread's search attributes set.
func (a *TemporalBackend) resolve(s ThreadSettings) (workflows.ThreadConfig, error) {
	tc, err := a.Settings.Resolve(s)
	tc.SearchAttributes = a.SearchAttributes
	return tc, err
}

func (a *TemporalBackend) NewThread(ctx context.Context, s ThreadSettings) (ThreadInfo, error) {
	tc, err := a.resolve(s)
	if err != nil {
		return ThreadInfo{}, err
	}
	return a.startThread(ctx, tc, nil, "", "")
}

// startThread starts a thread workflow with no turn; state, when set,
// carries a forked thread's history.
func (a *TemporalBackend) startThread(ctx context.Context, tc workflows.ThreadConfig, state *workflows.ThreadState, forkedFrom, preview string) (ThreadInfo, error) {
	if err := workflows.CheckThreadConfig(tc); err != nil {
		return ThreadInfo{}, err
	}
	id := threads.NewID()
	now := time.Now()
	summary := "thread (app-server)"
	memo := map[string]any{workflows.MemoTitle: preview, workflows.MemoCwd: tc.Cwd, workflows.MemoModel: tc.Model, workflows.MemoProvider: tc.Provider.ID, workflows.MemoCreatedAt: now.Unix()}
	if forkedFrom != "" {
		summary = "thread (app-server) forked from " + forkedFrom
		memo[workflows.MemoForkedFrom] = forkedFrom
	}
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                a.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowTaskTimeout:      workflows.ThreadTaskTimeout,
		StaticSummary:            summary,
		StaticDetails:            fmt.Sprintf("model `%s` · provider `%s` · cwd `%s`", tc.Model, tc.Provider.ID, tc.Cwd),
		Memo:                     memo,
	}
	if tc.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			workflows.SAModel.ValueSet(tc.Model), workflows.SACwd.ValueSet(tc.Cwd), workflows.SALastActivity.ValueSet(now.UTC()))
	}
	if _, err := a.Client.ExecuteWorkflow(ctx, opts, workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: id, Config: tc, State: state}); err != nil {
		return ThreadInfo{}, fmt.Errorf("starting thread: %w", err)
	}
	return ThreadInfo{ID: id, Config: tc, CreatedAt: now, UpdatedAt: now, ForkedFrom: forkedFrom, Preview: preview,
		InstructionSources: a.Settings.InstructionSources(tc)}, nil
}

// ForkThread starts a thread whose transcript is the source's (the
// transcript store is content-addressed, so both share it safely). Tool
// outputs the source's model has not read yet stay with the source.
func (a *TemporalBackend) ForkThread(ctx context.Context, sourceID string, s ThreadSettings) (ThreadInfo, error) {
	src, err := a.Thread(ctx, sourceID)
	if err != nil {
		return ThreadInfo{}, err
	}
	tc := src.View.Config
	if s.ModelProvider != "" || len(s.Config) > 0 {
		if s.Cwd == "" {
			s.Cwd = tc.Cwd
		}
		if tc, err = a.resolve(s); err != nil {
			return ThreadInfo{}, err
		}
	} else {
		if s.Model != "" {
			tc.Model = s.Model
		}
		if s.Cwd != "" {
			if st, err := os.Stat(s.Cwd); err != nil || !st.IsDir() {
				return ThreadInfo{}, &SettingsError{Err: fmt.Errorf("working directory %s does not exist", s.Cwd)}
			}
			tc.Cwd = s.Cwd
		}
		if s.ApprovalPolicy != "" {
			tc.ApprovalPolicy = s.ApprovalPolicy
		}
		if s.SandboxMode != "" {
			tc.SandboxMode = s.SandboxMode
		}
		if s.BaseInstructions != "" {
			tc.BaseInstructions = s.BaseInstructions
		}
		if s.DeveloperInstructions != "" {
			tc.DeveloperInstructions = s.DeveloperInstructions
		}
	}
	state := &workflows.ThreadState{Config: tc, Transcript: src.View.Transcript, NextTurn: 1}
	return a.startThread(ctx, tc, state, sourceID, src.Preview)
}

func (a *TemporalBackend) Thread(ctx context.Context, id string) (ThreadInfo, error) {
	d, err := a.Client.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return ThreadInfo{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, id)
	}
	if err != nil {
		return ThreadInfo{}, err
	}
	ex := d.GetWorkflowExecutionInfo()
	if ex.GetType().GetName() != "ThreadWorkflow" {
		return ThreadInfo{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, id)
	}
	v, err := threads.Read(ctx, a.Client, id)
	if err != nil {
		return ThreadInfo{}, err
	}
	info := a.summary(ctx, ex.GetExecution().GetWorkflowId(), ex.GetStartTime().AsTime(), ex.GetMemo(), ex.GetSearchAttributes(), len(v.Turns) > 0 || v.RunningTurn != "")
	info.Config = v.Config
	info.View = &v
	if v.Name != "" {
		info.Name = v.Name
	}
	info.Archived = ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	return info, nil
}

// ViewNow reads a thread's view as it is now: a turn whose end was just
// told may still show as running (see viewNow).
func (a *TemporalBackend) ViewNow(ctx context.Context, id string) (workflows.ThreadView, error) {
	return threads.ReadNow(ctx, a.Client, id)
}

// summary reads what a thread's listing shows from its memo; the preview
// of a thread started without a prompt (app-server threads) is its first
// turn's prompt.
func (a *TemporalBackend) summary(ctx context.Context, id string, runStart time.Time, memo *commonpb.Memo, sa *commonpb.SearchAttributes, hasTurns bool) ThreadInfo {
	info := ThreadInfo{ID: id, CreatedAt: runStart, UpdatedAt: runStart}
	fields := memo.GetFields()
	str := func(k string) string {
		var s string
		if p, ok := fields[k]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &s)
		}
		return s
	}
	info.Preview = str(workflows.MemoTitle)
	info.ForkedFrom = str(workflows.MemoForkedFrom)
	info.Name = str(workflows.MemoName)
	if parent := str(workflows.MemoParentThread); parent != "" {
		info.Parent = &workflows.AgentParent{ThreadID: parent, Role: str(workflows.MemoAgentRole), Nickname: str(workflows.MemoAgentNickname), Depth: 1}
		if p, ok := fields[workflows.MemoAgentDepth]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &info.Parent.Depth)
		}
	}
	info.Config.Cwd = str(workflows.MemoCwd)
	info.Config.Model = str(workflows.MemoModel)
	if p, ok := sa.GetIndexedFields()[workflows.SAModel.GetName()]; ok && info.Config.Model == "" {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &info.Config.Model)
	}
	info.Config.Provider.ID = str(workflows.MemoProvider)
	if p, ok := fields[workflows.MemoCreatedAt]; ok {
		var sec int64
		if converter.GetDefaultDataConverter().FromPayload(p, &sec) == nil && sec > 0 {
			info.CreatedAt = time.Unix(sec, 0)
		}
	} else if u, err := uuid.Parse(id); err == nil && u.Version() == 7 {
		sec, nsec := u.Time().UnixTime()
		info.CreatedAt = time.Unix(sec, nsec)
	}
	if p, ok := sa.GetIndexedFields()[workflows.SALastActivity.GetName()]; ok {
		var t time.Time
		if converter.GetDefaultDataConverter().FromPayload(p, &t) == nil && !t.IsZero() {
			info.UpdatedAt = t
		}
	}
	if info.Preview == "" && hasTurns {
		if prompt, err := a.turnPrompt(ctx, workflows.TurnWorkflowID(id, 1)); err == nil {
			info.Preview = oneLinePreview(prompt)
		}
	}
	return info
}

func oneLinePreview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// threadListQuery selects one execution per thread: the current run.
const threadListQuery = "WorkflowType = 'ThreadWorkflow' AND ExecutionStatus != 'ContinuedAsNew'"

func (a *TemporalBackend) ListThreads(ctx context.Context, q ListQuery) (ThreadPage, error) {
	var token []byte
	if q.Cursor != "" {
		var err error
		if token, err = base64.RawURLEncoding.DecodeString(q.Cursor); err != nil {
			return ThreadPage{}, fmt.Errorf("%w: %w", ErrInvalidCursor, err)
		}
	}
	query := threadListQuery + " AND ExecutionStatus != 'Completed'"
	if q.Archived {
		query = "WorkflowType = 'ThreadWorkflow' AND ExecutionStatus = 'Completed'"
	}
	resp, err := a.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: a.Namespace, PageSize: int32(q.Limit), NextPageToken: token, Query: query,
	})
	if err != nil {
		if token != nil {
			return ThreadPage{}, fmt.Errorf("%w: %w", ErrInvalidCursor, err)
		}
		return ThreadPage{}, err
	}
	var page ThreadPage
	for _, ex := range resp.GetExecutions() {
		if q.Archived && !a.latestRun(ctx, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()) {
			continue // archived once, brought back (or archived again) since
		}
		// Whether a thread has turns is not in the listing; a thread
		// with no turn has no first prompt to read, which costs one
		// failed lookup.
		page.Threads = append(page.Threads, a.summary(ctx, ex.GetExecution().GetWorkflowId(), ex.GetStartTime().AsTime(),
			ex.GetMemo(), ex.GetSearchAttributes(), true))
	}
	if len(resp.GetNextPageToken()) > 0 {
		page.NextCursor = base64.RawURLEncoding.EncodeToString(resp.GetNextPageToken())
	}
	return page, nil
}

func (a *TemporalBackend) StartTurn(ctx context.Context, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if req.Cwd != "" {
		if st, err := os.Stat(req.Cwd); err != nil || !st.IsDir() {
			return workflows.StartTurnResponse{}, &SettingsError{Err: fmt.Errorf("working directory %s does not exist", req.Cwd)}
		}
	}
	return threads.Reply(ctx, a.Client, threadID, req)
}

// turnPrompt reads the prompt a turn started with from the first event of
// its current run (continue-as-new carries the prompt along).
func (a *TemporalBackend) turnPrompt(ctx context.Context, turnID string) (string, error) {
	resp, err := a.Client.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace:       a.Namespace,
		Execution:       &commonpb.WorkflowExecution{WorkflowId: turnID},
		MaximumPageSize: 1,
	})
	if err != nil {
		return "", err
	}
	evs := resp.GetHistory().GetEvents()
	if len(evs) == 0 {
		return "", fmt.Errorf("turn %s has no history", turnID)
	}
	input := evs[0].GetWorkflowExecutionStartedEventAttributes().GetInput()
	var in workflows.TurnInput
	if err := converter.GetDefaultDataConverter().FromPayloads(input, &in); err != nil {
		return "", fmt.Errorf("reading turn %s's input: %w", turnID, err)
	}
	return in.Prompt, nil
}

func (a *TemporalBackend) TurnLog(ctx context.Context, turnID string) (TurnLog, error) {
	var log TurnLog
	prompt, err := a.turnPrompt(ctx, turnID)
	if err != nil {
		return log, err
	}
	log.Prompt = prompt
	after := 0
	for {
		val, err := a.Client.QueryWorkflow(ctx, turnID, "", workflows.QueryEvents, workflows.EventsRequest{After: after, Limit: 500})
		if err != nil {
			return log, fmt.Errorf("reading the events of %s: %w", turnID, err)
		}
		var p workflows.EventsPage
		if err := val.Get(&p); err != nil {
			return log, err
		}
		log.Events = append(log.Events, p.Events...)
		log.Last, log.Done = p.Last, p.Done
		if p.Result != nil {
			log.Result = p.Result
		}
		if len(p.Events) == 0 {
			return log, nil
		}
		after = p.Events[len(p.Events)-1].Seq
		if after >= p.Last {
			return log, nil
		}
	}
}

func (a *TemporalBackend) Follow(ctx context.Context, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	return threads.Follow(ctx, a.Client, turnID, after, fn)
}

func (a *TemporalBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	return threads.Outcome(ctx, a.Client, turnID)
}

func (a *TemporalBackend) Interrupt(ctx context.Context, threadID string) error {
	return threads.Interrupt(ctx, a.Client, threadID)
}

// latestRun tells whether runID is a thread's latest run.
func (a *TemporalBackend) latestRun(ctx context.Context, id, runID string) bool {
	d, err := a.Client.DescribeWorkflowExecution(ctx, id, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetExecution().GetRunId() == runID
}

// Live reads a turn's running commands' output and its model calls'
// streamed text from their heartbeats.
func (a *TemporalBackend) Live(turnID string) LiveReader {
	return threads.NewLiveOutput(a.Client, turnID)
}

// ThreadChanges implements [ThreadChanger] with the thread's history long
// poll.
func (a *TemporalBackend) ThreadChanges(ctx context.Context, threadID string) <-chan struct{} {
	return threads.ThreadChanges(ctx, a.Client, threadID)
}
