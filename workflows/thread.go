package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// ThreadTaskTimeout is the workflow task timeout every thread starts with
// (continued runs inherit it). A thread's tasks run no local activity and
// replay at most threadHistoryLimit events, so they finish in a fraction of
// it; a task that a killed worker had taken is retried after it, so it is
// what a thread between turns loses to such a kill.
const ThreadTaskTimeout = 2 * time.Second

// turnTaskTimeout is a turn's workflow task timeout: short, so a turn
// whose worker died with a task in hand moves on quickly. A local
// activity that outlasts 80% of it costs the turn a task heartbeat (three
// events) each time, so turns whose whole model calls run locally get a
// longer one; budgeted calls wait in the task a quarter second at most.
func turnTaskTimeout(cfg ThreadConfig) time.Duration {
	if cfg.LocalModelCalls || cfg.ModelCalls == ModelCallsLocal {
		return 5 * time.Second
	}
	return 2 * time.Second
}

// threadHistoryLimit is the history length past which an idle thread
// continues as new.
const threadHistoryLimit = 8000

type thread struct {
	id        string
	st        ThreadState
	interrupt workflow.CancelFunc
	// archived is set by [UpdateArchive]; the thread then completes.
	archived bool
	// compacting is set while [UpdateCompact] runs.
	compacting bool
	// child is the running turn's workflow; once it is ready the turn has
	// ended, though the thread may not have taken in its result yet.
	child workflow.ChildWorkflowFuture
	// slotReplies are the root's answers to this sub-agent's requests for
	// a slot of max_threads, by agent id.
	slotReplies map[string]AgentSlotReply
	// bg holds the watches of background terminals (bgterm.go).
	bg bgRuntime
	// afterEnded: a queued turn's client said the running turn ended;
	// stopNext: an interrupt came for that queued turn (threadafter.go).
	afterEnded, stopNext bool
	// quickBusy is set while a quick turn's first step runs in an update
	// handler (quickturn.go): the thread's loop waits for it.
	quickBusy bool
	// quickWaiting is set while a quick turn waits for the thread to take
	// in the turn its client saw end.
	quickWaiting bool
}

// ThreadWorkflow is one conversation. It accepts turns, runs each as a child
// [TurnWorkflow], and keeps the transcript reference, the turn results and
// the token totals.
func ThreadWorkflow(ctx workflow.Context, in ThreadInput) error {
	t := &thread{id: in.ThreadID}
	if in.State != nil {
		t.st = *in.State
	} else {
		t.st = ThreadState{Config: in.Config, NextTurn: 1, Parent: in.Parent, Transcript: in.Transcript, DocsDigest: in.DocsDigest}
	}
	if err := t.register(ctx); err != nil {
		return err
	}
	t.registerAgents(ctx)
	if err := t.registerGoal(ctx); err != nil {
		return err
	}
	if err := t.bgRegister(ctx); err != nil {
		return err
	}
	t.registerApprovalStatus(ctx)
	if in.State == nil && in.First != nil {
		_, _ = t.acceptTurn(ctx, *in.First)
	}
	for {
		t.bgSync(ctx) // versioned inside (bgtermChange)
		work := func() bool {
			return !t.quickBusy && (len(t.st.Queue) > 0 || t.archived || t.shouldContinueAsNew(ctx) || t.goalDue() || t.bgDue())
		}
		if t.memoryDue() && !work() {
			if err := t.idleMemory(ctx, work); err != nil {
				return err
			}
		}
		if err := workflow.Await(ctx, work); err != nil {
			return err
		}
		if t.archived && len(t.st.Queue) == 0 {
			return t.archive(ctx)
		}
		if t.goalDue() && !t.shouldContinueAsNew(ctx) {
			if t.continueGoal(ctx); len(t.st.Queue) == 0 {
				continue // the goal stopped at a bound: nothing to run
			}
		}
		t.bgWake(ctx)
		if len(t.st.Queue) == 0 {
			t.bgStop(ctx)
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			st := t.st
			return workflow.NewContinueAsNewError(ctx, ThreadWorkflow, ThreadInput{ThreadID: t.id, State: &st})
		}
		q := t.st.Queue[0]
		t.st.Queue = t.st.Queue[1:]
		t.runTurn(ctx, q)
	}
}

func (t *thread) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > threadHistoryLimit
}

func (t *thread) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryThread, func() (ThreadView, error) {
		return ThreadView{ThreadID: t.id, Config: t.st.Config, Turns: t.st.Turns, RunningTurn: t.runningTurn(),
			Usage: t.st.Usage, Transcript: t.st.Transcript, SessionApprovals: t.st.SessionApprovals,
			ContextTokens: t.st.ContextTokens, Name: t.st.Name, Parent: t.st.Parent, Agents: agentsView(t.st.Agents),
			AgentApprovals: t.st.AgentApprovals, TreeAgents: t.st.TreeAgents, Goal: t.st.Goal}, nil
	}); err != nil {
		return err
	}
	if err := t.registerName(ctx); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateStartTurn, t.acceptTurn,
		workflow.UpdateHandlerOptions{Validator: t.validateTurn}); err != nil {
		return err
	}
	submit := workflow.GetSignalChannel(ctx, SignalStartTurn)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var req StartTurnRequest
			submit.Receive(ctx, &req)
			if strings.TrimSpace(req.Prompt) == "" {
				workflow.GetLogger(ctx).Warn("dropped a submitted turn with an empty prompt")
				continue
			}
			_, _ = t.acceptTurn(ctx, req)
		}
	})
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateArchive, func(ctx workflow.Context) error {
		t.archived = true
		return nil
	}, workflow.UpdateHandlerOptions{Validator: t.validateArchive}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateCompact, t.compact,
		workflow.UpdateHandlerOptions{Validator: t.validateCompact}); err != nil {
		return err
	}
	ch := workflow.GetSignalChannel(ctx, SignalInterrupt)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			ch.Receive(ctx, nil)
			t.interruptRunning(ctx)
		}
	})
	return nil
}

func (t *thread) validateTurn(ctx workflow.Context, req StartTurnRequest) error {
	if strings.TrimSpace(req.Prompt) == "" && len(req.Images) == 0 {
		return errors.New("prompt is empty")
	}
	if err := t.checkTurnSize(req); err != nil {
		return err
	}
	if req.SandboxMode != "" {
		if _, err := sandbox.ParseMode(req.SandboxMode); err != nil {
			return err
		}
	}
	if req.ApprovalPolicy != "" {
		if _, err := sandbox.ParsePolicy(req.ApprovalPolicy); err != nil {
			return err
		}
	}
	if err := (harness.Reasoning{Effort: req.Effort, Summary: req.Summary}).Validate(); err != nil {
		return err
	}
	if err := checkImages(req, t.st.Config); err != nil {
		return err
	}
	if err := checkRunKind(req.RunKind); err != nil {
		return err
	}
	if t.archived {
		return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
	}
	if t.compacting {
		return Refusal(ErrCompacting, "thread %s is compacting its context; send the turn again when that is done", t.id)
	}
	if t.st.Running != "" && !t.turnEnded() && !t.endedBy(req) {
		return Refusal(ErrTurnRunning, "thread %s is running turn %s; wait for it to finish or interrupt it", t.id, t.st.Running)
	}
	if len(t.st.Queue) > 0 {
		return Refusal(ErrTurnWaiting, "thread %s already has turn %s waiting to start", t.id, t.st.Queue[0].TurnID)
	}
	return nil
}

// checkTurnSize refuses input over the limits, and input that would not
// fit, with the thread's settings, in the input of the turn's workflow.
// Validators do not run on replay, so a change here needs no version.
func (t *thread) checkTurnSize(req StartTurnRequest) error {
	if err := CheckInput("Input", req.Prompt); err != nil {
		return err
	}
	settings := jsonSize(t.st.Config) + jsonSize(t.st.Unsent) + jsonSize(t.st.SessionApprovals)
	if req.Mode != nil {
		if err := CheckInput("Collaboration mode instructions", req.Mode.Instructions); err != nil {
			return err
		}
	}
	if n := jsonSize(req.Prompt) + jsonSize(req.Images) + jsonSize(req.Mode); settings+n > maxTurnInputBytes {
		return fmt.Errorf("input refused: this input (%d bytes as JSON) and the thread's settings (%d bytes: instructions, tools) exceed the %d bytes a turn may start with", n, settings, maxTurnInputBytes)
	}
	return nil
}

// turnEnded tells whether the running turn's workflow has ended (its
// result arrived in this workflow task and is about to be taken in): a
// turn sent right after the end is then queued rather than refused, so a
// client that replies at once does not have to ask again.
func (t *thread) turnEnded() bool {
	return t.child != nil && t.child.IsReady()
}

func (t *thread) validateArchive(ctx workflow.Context) error {
	if t.compacting {
		return Refusal(ErrCompacting, "thread %s is compacting its context; archive it when that is done", t.id)
	}
	if t.st.Running != "" {
		return Refusal(ErrTurnRunning, "thread %s is running turn %s; wait for it to finish or interrupt it before archiving", t.id, t.st.Running)
	}
	if len(t.st.Queue) > 0 {
		return Refusal(ErrTurnWaiting, "thread %s has turn %s waiting to start; wait for it to finish before archiving", t.id, t.st.Queue[0].TurnID)
	}
	return nil
}

// archive completes the thread (only threads that received
// [UpdateArchive] come here).
func (t *thread) archive(ctx workflow.Context) error {
	// Its sub-agents end with it.
	t.closeAll(ctx)
	if t.memoryDue() {
		t.extractMemory(ctx)
	}
	if len(t.st.ExecSessions) > 0 {
		// The thread's sessions end with it (their worker processes may be
		// gone already: then there is nothing to end).
		pickup := 5 * time.Second
		if hb := t.st.Config.ExecHeartbeat; hb > 0 {
			pickup = max(hb, time.Second)
		}
		closeSessions(ctx, t.id, t.st.ExecSessions, pickup, t.st.Config.HostQueue)
		t.st.ExecSessions = nil
	}
	if t.st.Config.SearchAttributes {
		_ = workflow.UpsertTypedSearchAttributes(ctx, SAStatus.ValueSet(StatusArchived), SALastActivity.ValueSet(workflow.Now(ctx).UTC()))
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

func (t *thread) acceptTurn(ctx workflow.Context, req StartTurnRequest) (StartTurnResponse, error) {
	t.noteAfter(req)
	n := t.st.NextTurn
	t.st.NextTurn++
	id := TurnWorkflowID(t.id, n)
	q := QueuedTurn{TurnID: id, Number: n, Request: req}
	if t.quickAfter(ctx, req) && t.quickEligible(req) && workflow.GetVersion(ctx, quickTurnChange, workflow.DefaultVersion, 1) == 1 {
		return t.quickTurn(ctx, q), nil
	}
	t.st.Queue = append(t.st.Queue, q)
	return StartTurnResponse{TurnID: id, Number: n}, nil
}

func (t *thread) runTurn(ctx workflow.Context, q QueuedTurn) {
	if q.Taken {
		t.recordTurn(ctx, q)
		return
	}
	t.applyOverrides(q.Request)
	t.st.Running = q.TurnID
	if t.st.Config.Memories && !t.st.MemoryLoaded {
		t.loadMemory(ctx)
	}
	defer func() { t.st.Running = ""; t.interrupt = nil; t.child = nil }()
	childCtx, cancel := workflow.WithCancel(ctx)
	t.interrupt = cancel
	childCtx = t.childOptions(childCtx, q)
	t.takeLateNotices()
	in := t.turnInput(q)
	if q.Input != nil {
		in = *q.Input // prepared by a quick turn (quickturn.go)
	}
	var res TurnResult
	goalAt := t.goalTurnStarted(ctx)
	t.child = workflow.ExecuteChildWorkflow(childCtx, TurnWorkflow, in)
	t.startedTurn(ctx, t.child, cancel)
	err := t.child.Get(ctx, &res)
	if r, ok := TurnResultOf(err); ok {
		// A failed or interrupted turn: its result comes with the error.
		res, err = r, nil
	}
	if err != nil {
		// The turn workflow reports its own failures as results (or with
		// them); an error here means it was terminated or timed out from
		// outside, or it refused to run (another turn code). The thread
		// keeps what it had, but for the turn's session ids: its own
		// sessions are not known, those before it are.
		res = TurnResult{TurnID: q.TurnID, Number: q.Number, Status: StatusFailed,
			Error: "turn ended abnormally: " + abnormalEnd(err), Carried: t.st.Carried}
		res.NextSession += maxExecSessions
		res.ContextTokens, res.DocsDigest = 0, ""
		var canceled *temporal.CanceledError
		if errors.As(err, &canceled) {
			res.Status, res.Error = StatusInterrupted, ""
		}
	}
	t.takeIn(ctx, q, goalAt, res, err != nil)
}

// childOptions are the options of q's turn workflow.
func (t *thread) childOptions(ctx workflow.Context, q QueuedTurn) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            q.TurnID,
		StaticSummary:         kindSummary(q),
		StaticDetails:         turnDetails(t.st.Config) + KindDetails(q.runKind()),
		WaitForCancellation:   true,
		WorkflowTaskTimeout:   turnTaskTimeout(t.st.Config),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_TERMINATE,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		TypedSearchAttributes: t.turnSearchAttributes(q),
		// The thread's fairness key is inherited; its priority is not.
		Priority: temporal.Priority{PriorityKey: turnPriorityKey},
	})
}

// turnInput is the input q's turn starts with, from the thread's state.
func (t *thread) turnInput(q QueuedTurn) TurnInput {
	cfg := withCompactDefaults(t.st.Config)
	cfg.DeveloperInstructions = withMemory(cfg.DeveloperInstructions, t.st.MemorySummary)
	cfg = withMode(cfg, q.Request.Mode)
	cfg = t.goalApprovalBound(cfg, q)
	in := TurnInput{
		ThreadID: t.id, TurnID: q.TurnID, Number: q.Number, Config: cfg,
		Prompt: q.Request.Prompt, Carried: t.st.Carried, Code: turnCode, Images: q.Request.Images,
		RunKind: q.runKind(),
	}
	if t.st.Parent != nil {
		in.RootThread = t.st.Parent.RootID
	}
	in.AgentApprovals = t.st.AgentApprovals
	return in
}

// takeIn keeps what a turn's result carries on (abnormal: the turn's
// workflow ended from outside, and its context is not known).
func (t *thread) takeIn(ctx workflow.Context, q QueuedTurn, goalAt goalAtStart, res TurnResult, abnormal bool) {
	kept := t.st.Carried
	t.st.Carried = res.Carried
	if res.DocsDigest == "" {
		t.st.DocsDigest = kept.DocsDigest
	}
	if abnormal {
		t.st.ContextTokens = kept.ContextTokens
	}
	t.st.Usage.Add(res.Usage)
	res.Tail = nil
	t.st.Turns = append(t.st.Turns, res)
	if len(t.st.Turns) > maxKeptTurns {
		t.st.Turns = t.st.Turns[len(t.st.Turns)-maxKeptTurns:]
	}
	if t.st.Config.SearchAttributes {
		_ = workflow.UpsertTypedSearchAttributes(ctx, t.turnEndSearchAttributes(q, res, workflow.Now(ctx))...)
	}
	t.goalTurnEnded(ctx, goalAt, res)
	t.reportTurn(ctx, res)
}

func (t *thread) applyOverrides(r StartTurnRequest) {
	c := &t.st.Config
	if r.Model != "" {
		c.Model = r.Model
	}
	if r.Cwd != "" {
		c.Cwd = r.Cwd
	}
	if r.SandboxMode != "" {
		c.SandboxMode = r.SandboxMode
	}
	if r.ApprovalPolicy != "" {
		c.ApprovalPolicy = r.ApprovalPolicy
	}
	if r.Effort != "" {
		c.Reasoning.Effort = r.Effort
	}
	if r.Summary != "" {
		c.Reasoning.Summary = r.Summary
	}
	r.Timeouts.apply(c)
}

func rootMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}
