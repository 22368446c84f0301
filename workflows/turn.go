package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

var acts *activities.Activities

type turn struct {
	in      TurnInput
	st      TurnState
	log     *eventLog
	status  string
	errText string
	// decisions are answers to pending approvals, by item id, until the
	// waiting tool call takes them.
	decisions map[string]string
	// aborted is set when a person answered "abort": the turn ends.
	aborted error
	// answers are answers to pending dynamic tool calls, by item id.
	answers map[string]DynamicAnswer
	// waiting counts waits for a client's answer (they stop the stall
	// clock); stalled is set when the stall timeout ended the turn.
	waiting int
	stalled bool
	// hostGiveUp ends the turn when its workspace host has no worker
	// (set by watchHost); hostLost tells finish that this ended it, and
	// hostWarned is the last warning about the host.
	hostGiveUp func(msg string)
	hostLost   bool
	hostWarned string
	// agentReplies are the thread's answers to sub-agent calls, by call
	// id, until the waiting call takes its own.
	agentReplies map[string]AgentReply
	// goalReplies are the thread's answers to goal tool calls, by call id.
	goalReplies map[string]GoalReply
	// localTask is the history length at the start of the workflow task
	// that last made a model call as a local activity ([turn.closeApart]).
	localTask int
	// localBudget is what this workflow task spent on local commands.
	localBudget localTaskBudget
	// localVersion is the turn's version of [localCommandsChange] (set
	// by [turn.localCommands]).
	localVersion workflow.Version
}

// TurnWorkflow is one turn: model call, the tool calls it asked for, repeat
// until the model stops, the turn is interrupted (cancelled by its thread),
// or max_steps / the turn timeout ends it.
func TurnWorkflow(ctx workflow.Context, in TurnInput) (TurnResult, error) {
	if err := checkTurnCode(ctx, in); err != nil {
		return TurnResult{}, err
	}
	t := &turn{in: in}
	if in.State != nil {
		t.st = *in.State
		t.st.Runs++
	} else {
		t.st = newTurnState(in)
		if in.Config.TurnTimeout > 0 {
			t.st.Deadline = workflow.Now(ctx).Add(in.Config.TurnTimeout)
		}
	}
	t.log = newEventLog(t.st.Events, t.st.LastSeq, in.TurnID)
	t.log.heard = in.State != nil
	if err := t.log.register(ctx); err != nil {
		return TurnResult{}, err
	}
	if err := t.registerApprovals(ctx); err != nil {
		return TurnResult{}, err
	}
	if err := t.registerDynamic(ctx); err != nil {
		return TurnResult{}, err
	}
	if err := t.registerSteer(ctx); err != nil {
		return TurnResult{}, err
	}
	t.registerAgentReplies(ctx)
	t.registerGoalReplies(ctx)
	t.registerNotices(ctx)
	t.registerSessionEnds(ctx)
	if in.State == nil {
		t.log.add(Event{Type: EventTurnStarted})
	}
	t.registerAgentApprovals(ctx)

	ctx, stopTimer := t.withTimeout(ctx)
	defer stopTimer()
	ctx, stopStall := t.watchStall(ctx)
	defer stopStall()
	ctx, stopHost := t.watchHost(ctx)
	defer stopHost()
	if in.State == nil && in.Transcript == "" && !hasContext(in.Unsent) {
		t.startupContext(ctx)
	}
	if in.State == nil {
		if err := t.loadImages(ctx); err != nil {
			return t.finish(ctx, StatusFailed, err.Error())
		}
		if err := t.prepareSkills(ctx); err != nil {
			return t.finish(ctx, StatusFailed, "preparing the turn: "+err.Error())
		}
		if err := t.prepareTools(ctx); err != nil {
			return t.finish(ctx, StatusFailed, err.Error())
		}
	}
	for {
		if ctx.Err() != nil {
			return t.finish(ctx, StatusInterrupted, t.interruptReason())
		}
		if t.st.Step >= t.maxSteps() {
			return t.finish(ctx, StatusFailed, fmt.Sprintf("turn stopped after max_steps (%d) model calls", t.maxSteps()))
		}
		if t.shouldContinueAsNew(ctx) {
			return TurnResult{}, t.continueAsNew(ctx)
		}
		if err := t.maybeCompact(ctx); err != nil {
			return t.finish(ctx, StatusFailed, err.Error())
		}
		t.st.Step++
		out, err := t.nextAnswer(ctx)
		t.log.heard = true
		if err != nil {
			if ctx.Err() != nil {
				return t.finish(ctx, StatusInterrupted, t.interruptReason())
			}
			return t.finish(ctx, StatusFailed, rootMessage(err))
		}
		t.st.Transcript = out.Transcript
		t.st.Pending = nil
		t.st.Usage.Add(out.Usage)
		t.st.ContextTokens = out.Usage.InputTokens + out.Usage.OutputTokens
		t.showAnswer(out)
		if len(out.Calls) == 0 && len(t.st.Steers) > 0 && !t.in.Taken {
			// Input steered in during the call: the model reads it next.
			continue
		}
		if len(out.Calls) == 0 {
			t.st.Final = out.Message
			return t.finish(ctx, StatusCompleted, "")
		}
		t.st.Pending = append(t.st.Pending, t.runTools(ctx, out.Calls)...)
		if t.aborted != nil {
			return t.finish(ctx, StatusInterrupted, t.aborted.Error())
		}
	}
}

// newTurnState is a new turn's state: the entries the thread carried
// unsent go first, with the prompt.
func newTurnState(in TurnInput) TurnState {
	st := TurnState{Carried: in.Carried,
		Pending: append(append([]harness.Entry{}, in.Unsent...), harness.Entry{Kind: harness.KindUser, Text: in.Prompt})}
	st.Unsent = nil
	return st
}

// startupContext opens a thread with the harness's start-up context
// exchange (date, OS, working directory listing) for harnesses that have
// one. It runs once per thread, before the first model call; the entries
// stay at the start of the transcript. Other harnesses issue no command.
func (t *turn) startupContext(ctx workflow.Context) {
	cfg := t.in.Config
	h, err := harness.Lookup(cfg.Harness)
	if err != nil || !h.Info().StartupContext {
		return
	}
	p, ok := h.(harness.Preluder)
	if !ok {
		return
	}
	info := harness.StartupInfo{Cwd: cfg.Cwd, OS: "unknown", Listing: "(not available)"}
	opts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             "start-up context · " + cfg.Cwd,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}
	in := activities.FileToolInput{ThreadID: t.in.ThreadID, CallID: "startup", Cwd: cfg.Cwd,
		Inv: harness.Invocation{Tool: activities.ToolStartup}}
	var out activities.FileToolOutput
	if err := t.onHost(ctx, opts, acts.FileTool, in, &out); err == nil && out.Startup != nil {
		info = *out.Startup
	}
	info.Date = workflow.Now(ctx).UTC().Format("Monday, January 2, 2006")
	t.st.Pending = append(p.Prelude(info), t.st.Pending...)
}

// hasContext reports whether entries already carry a start-up context (a
// first turn that failed before its first answer hands them on unsent).
func hasContext(entries []harness.Entry) bool {
	for _, e := range entries {
		if e.Context {
			return true
		}
	}
	return false
}

func (t *turn) maxSteps() int {
	if t.in.Config.MaxSteps > 0 {
		return t.in.Config.MaxSteps
	}
	return 200
}

// withTimeout cancels the turn's context when the turn timeout fires; the
// timer is durable, so it holds across worker restarts.
func (t *turn) withTimeout(ctx workflow.Context) (workflow.Context, func()) {
	ctx, cancel := workflow.WithCancel(ctx)
	if t.st.Deadline.IsZero() {
		return ctx, cancel
	}
	d := t.st.Deadline.Sub(workflow.Now(ctx))
	timedOut := func() {
		t.errText = fmt.Sprintf("turn timed out after %s", t.in.Config.TurnTimeout)
		cancel()
	}
	if d <= 0 {
		timedOut()
		return ctx, cancel
	}
	timerCtx, stop := workflow.WithCancel(ctx)
	workflow.Go(timerCtx, func(gctx workflow.Context) {
		timer := workflow.NewTimerWithOptions(gctx, d, workflow.TimerOptions{Summary: "turn timeout"})
		if err := timer.Get(gctx, nil); err == nil {
			timedOut()
		}
	})
	return ctx, func() { stop(); cancel() }
}

func (t *turn) interruptReason() string {
	if t.errText != "" {
		return t.errText
	}
	return ""
}

func (t *turn) callModel(ctx workflow.Context) (*activities.ModelOutput, error) {
	return t.callModelRetrying(ctx, t.modelInput(ctx))
}

// modelInput is the input of the step's model call.
func (t *turn) modelInput(ctx workflow.Context) activities.ModelInput {
	cfg := t.in.Config
	in := activities.ModelInput{
		ThreadID: t.in.ThreadID, TurnID: t.in.TurnID, Step: t.st.Step,
		Model: cfg.Model, Provider: cfg.Provider, Harness: cfg.Harness,
		Env: harness.Env{Model: cfg.Model, Cwd: cfg.Cwd, SandboxMode: cfg.SandboxMode, ApprovalPolicy: cfg.ApprovalPolicy,
			Shell: "bash", BaseInstructions: cfg.BaseInstructions, DeveloperInstructions: cfg.DeveloperInstructions,
			Date: workflow.Now(ctx).UTC().Format("2006-01-02"), NoGuidance: cfg.NoHarnessGuidance, Skills: t.envSkills()},
		Transcript: t.st.Transcript, Append: t.st.Pending, External: t.st.External,
		Reasoning: cfg.Reasoning,
	}
	return in
}

// callModelOnce makes one attempt of a call.
func (t *turn) callModelOnce(ctx workflow.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	switch {
	case t.localModelCall():
		return t.callModelLocally(ctx, in)
	case t.budgetedModelCall():
		out, err := t.callModelWithin(ctx, in, modelCallBudget)
		if err != nil || out != nil && out.Handoff == "" {
			return out, err
		}
		if out != nil {
			return t.takeOver(ctx, in, out)
		}
	}
	return t.callModelActivity(ctx, in)
}

func (t *turn) showAnswer(out *activities.ModelOutput) {
	if out.Reasoning != "" {
		it := t.newItem(ItemReasoning)
		it.Text = out.Reasoning
		t.log.add(Event{Type: EventItemCompleted, Item: it})
	}
	if out.Message != "" {
		it := t.newItem(ItemAgentMessage)
		it.Text = out.Message
		t.log.add(Event{Type: EventItemCompleted, Item: it})
	}
}

func (t *turn) newItem(typ string) *Item {
	id := "item_" + itoa(t.st.NextItem)
	t.st.NextItem++
	return &Item{ID: id, Type: typ}
}

func (t *turn) finish(ctx workflow.Context, status, errText string) (TurnResult, error) {
	res := t.result(status, errText)
	t.closeApart(ctx, &res)
	t.forgetCommands(ctx)
	// Let event readers that are waiting see the end before the run closes.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.Await(dctx, func() bool { return workflow.AllHandlersFinished(dctx) })
	res.Unsent = append(res.Unsent, t.closingNotices(ctx)...)
	return t.closeWith(res)
}

// result ends the turn's log and returns its result: the pure half of
// [turn.finish], which a thread also runs for a quick turn (quickturn.go).
func (t *turn) result(status, errText string) TurnResult {
	if status == StatusInterrupted && t.stalled {
		status = StatusFailed
	}
	if t.hostLost && status != StatusCompleted {
		// Whatever step noticed the cancellation, the missing host ended it.
		status, errText = StatusFailed, t.errText
	}
	t.status = status
	late := t.st.Notices // came after the last model call
	t.takeSteers()       // steered input the model never read goes to the next turn
	res := TurnResult{
		TurnID: t.in.TurnID, Number: t.in.Number, Status: status, Error: errText,
		FinalMessage: t.st.Final, Usage: t.st.Usage, Steps: t.st.Step,
		Carried: t.st.Carried, InstructionSources: t.st.DocSources, ApprovalWaitMs: t.st.ApprovalWaitMs,
	}
	if status == StatusFailed {
		t.log.add(Event{Type: EventTurnFailed, Error: errText, Usage: &res.Usage})
	} else {
		t.log.add(Event{Type: EventTurnCompleted, Usage: &res.Usage, Error: errText})
	}
	shown := res
	t.log.result = &shown
	res.Tail, _ = t.log.tail(16, waitEventsBudget)
	if status != StatusCompleted {
		res.Unsent = t.st.Pending
	} else {
		// Sub-agents' notices the model never read: the next turn sends them.
		res.Unsent = append(res.Unsent, userEntries(late)...)
	}
	t.log.done = true
	return res
}

// closingNotices are the sub-agents' notices that reached the turn while
// it closed (after the last model call's check, during the close-apart
// task or the wait above): the thread counts them delivered, so the next
// turn sends them. The channel is drained here too, because the task that
// closes may deliver a notice that the receiving coroutine has not yet
// taken when this one returns.
func (t *turn) closingNotices(ctx workflow.Context) []harness.Entry {
	ch := workflow.GetSignalChannel(ctx, SignalAgentNotice)
	var n AgentNotice
	for ch.ReceiveAsync(&n) {
		t.st.Notices = append(t.st.Notices, n.Text)
	}
	out := userEntries(t.st.Notices)
	t.st.Notices = nil
	return out
}

// userEntries are texts the next model call sends as user messages.
func userEntries(texts []string) []harness.Entry {
	var out []harness.Entry
	for _, text := range texts {
		out = append(out, harness.Entry{Kind: harness.KindUser, Text: text})
	}
	return out
}

func (t *turn) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > historyEventsLimit(t.in.Config) ||
		info.GetCurrentHistorySize() > 24<<20
}

// historyEventsLimit is the history length past which a turn continues
// as new.
func historyEventsLimit(cfg ThreadConfig) int {
	if cfg.HistoryEventsCAN > 0 {
		return cfg.HistoryEventsCAN
	}
	return 10000
}

func (t *turn) continueAsNew(ctx workflow.Context) error {
	t.log.closing = true
	// Tool calls that ran no activity leave the step's model call in this
	// task, and continuing as new closes the run as completing it does.
	t.closeApart(ctx, nil)
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	t.st.Events, t.st.LastSeq = t.log.tail(maxKeptEvents, maxKeptEventBytes)
	in := t.in
	st := t.st
	in.State = &st
	in.Prefetched = nil // used by the first run
	return workflow.NewContinueAsNewError(ctx, TurnWorkflow, in)
}

// isTimeout reports whether an activity failed because its worker stopped
// heartbeating or ran out of time: the outcome of the work is unknown.
func isTimeout(err error) bool {
	var te *temporal.TimeoutError
	return errors.As(err, &te)
}

func commandString(argv []string) string {
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
