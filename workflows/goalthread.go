package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"
)

// goalsChange is the change id of the goal loop's version marker: every
// command the goal code adds to a thread's history comes after it, so a
// history recorded before goals replays unchanged.
const goalsChange = "goals"

// Types of the errors with which the goal updates refuse.
const (
	// ErrGoalsOff: goals are off for the thread ([features] goals).
	ErrGoalsOff = "GoalsOff"
	// ErrNoGoal: the thread has no goal.
	ErrNoGoal = "NoGoal"
	// ErrBadGoal: the change asked for is not valid.
	ErrBadGoal = "BadGoal"
)

// registerGoal sets up the goal's query and updates and listens for the
// goal tools of the thread's turns. Listening adds nothing to a history
// until a message comes.
func (t *thread) registerGoal(ctx workflow.Context) error {
	if t.st.Goal != nil || len(t.st.Waiting) > 0 {
		t.showDetails(ctx)
	}
	if err := workflow.SetQueryHandler(ctx, QueryGoal, func() (*Goal, error) { return t.st.Goal, nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateSetGoal, t.setGoal,
		workflow.UpdateHandlerOptions{Validator: t.validateSetGoal}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateClearGoal, t.clearGoal,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error { return t.goalRefusal() }}); err != nil {
		return err
	}
	requests := workflow.GetSignalChannel(ctx, SignalGoalRequest)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r GoalRequest
			requests.Receive(ctx, &r)
			t.answerGoalRequest(ctx, r)
		}
	})
	return nil
}

// goalRefusal refuses goal changes on a thread that takes none.
func (t *thread) goalRefusal() error {
	if t.archived {
		return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
	}
	if t.st.Config.Goals == nil {
		return Refusal(ErrGoalsOff, "goals are off for thread %s ([features] goals = false when it started)", t.id)
	}
	return nil
}

// validateSetGoal refuses a change that is not valid; validators do not
// run on replay, so a change here needs no version.
func (t *thread) validateSetGoal(ctx workflow.Context, r GoalSetRequest) error {
	if err := t.goalRefusal(); err != nil {
		return err
	}
	if r.Status != "" && !ValidGoalStatus(r.Status) {
		return Refusal(ErrBadGoal, "unknown goal status %q: it is one of %s", r.Status, strings.Join(GoalStatuses, ", "))
	}
	obj := strings.TrimSpace(r.Objective)
	if obj == "" && t.st.Goal == nil {
		return Refusal(ErrNoGoal, "thread %s has no goal: give an objective to set one", t.id)
	}
	if err := t.checkObjective(obj); err != "" {
		return Refusal(ErrBadGoal, "%s", err)
	}
	if err := t.checkBudget(r.TokenBudget); err != "" {
		return Refusal(ErrBadGoal, "%s", err)
	}
	return nil
}

func (t *thread) checkObjective(obj string) string {
	if len(obj) > maxGoalObjective {
		return fmt.Sprintf("the objective is %d bytes long; the limit is %d", len(obj), maxGoalObjective)
	}
	return ""
}

func (t *thread) checkBudget(b *int64) string {
	if b == nil {
		return ""
	}
	if *b <= 0 {
		return fmt.Sprintf("token budget %d is not a positive number of tokens", *b)
	}
	if limit := t.goalsConfig().MaxTokenBudget; limit > 0 && *b > limit {
		return fmt.Sprintf("token budget %d exceeds the largest allowed, %d (goals.max_goal_token_budget)", *b, limit)
	}
	return ""
}

func (t *thread) goalsConfig() GoalsConfig {
	if t.st.Config.Goals == nil {
		return GoalsConfig{}.withDefaults()
	}
	return t.st.Config.Goals.withDefaults()
}

// goalsOn records the goal code's version marker (once per run) and says
// whether this history runs it; a history that has goal messages was
// written by a build with goals, so it is always true there.
func (t *thread) goalsOn(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, goalsChange, workflow.DefaultVersion, 1) >= 1
}

func (t *thread) setGoal(ctx workflow.Context, r GoalSetRequest) (Goal, error) {
	t.goalsOn(ctx)
	now := workflow.Now(ctx)
	g := t.st.Goal
	if obj := strings.TrimSpace(r.Objective); g == nil || (obj != "" && obj != g.Objective) {
		seq := 0
		if g != nil {
			seq = g.Seq
		}
		g = &Goal{Objective: obj, Status: GoalActive, CreatedAt: now, Seq: seq}
	}
	if r.TokenBudget != nil {
		b := *r.TokenBudget
		g.TokenBudget = &b
	}
	if r.NoBudget {
		g.TokenBudget = nil
	}
	if r.Status != "" {
		reason := ""
		if r.Status != GoalActive {
			reason = "set to " + r.Status + " by a person"
		}
		setGoalStatus(g, r.Status, reason)
	}
	g.Origin = orGoal(r.Origin, GoalByUser)
	t.st.Goal = g
	t.goalChanged(ctx, now)
	return *g, nil
}

func (t *thread) clearGoal(ctx workflow.Context) (bool, error) {
	if t.st.Goal == nil {
		return false, nil
	}
	t.goalsOn(ctx)
	t.st.Goal = nil
	t.showDetails(ctx)
	return true, workflow.UpsertMemo(ctx, map[string]any{MemoGoal: ""})
}

// setGoalStatus changes a goal's status; a goal that becomes active
// again starts its usage bounds afresh.
func setGoalStatus(g *Goal, status, reason string) {
	if status == GoalActive && g.Status != GoalActive {
		g.Run = GoalRun{}
	}
	g.Status = status
	g.Reason = reason
	if status == GoalActive {
		g.Reason = ""
	}
}

// goalChanged stamps a change of the goal and shows it in the memo and
// the UI's current details.
func (t *thread) goalChanged(ctx workflow.Context, now time.Time) {
	g := t.st.Goal
	g.UpdatedAt = now
	g.Seq++
	t.showDetails(ctx)
	if err := workflow.UpsertMemo(ctx, map[string]any{MemoGoal: goalMemo(g)}); err != nil {
		workflow.GetLogger(ctx).Warn("goal memo not updated", "error", err)
	}
}

// goalMemo is the goal as listings show it: status and objective.
func goalMemo(g *Goal) string {
	return g.Status + ": " + oneLine(g.Objective, 200)
}

// goalDetails is the goal as the Temporal UI shows it on the thread's
// page (current details, markdown).
func goalDetails(g *Goal) string {
	s := fmt.Sprintf("**goal** `%s` · %d tokens", g.Status, g.TokensUsed)
	if g.TokenBudget != nil {
		s += fmt.Sprintf(" of %d", *g.TokenBudget)
	}
	s += fmt.Sprintf(" · %ds · %d continuation turns", g.TimeUsedSeconds, g.Continuations)
	if g.Reason != "" {
		s += " · " + g.Reason
	}
	return s + "\n\n" + oneLine(g.Objective, 500)
}

// goalDue tells whether the thread should start a continuation turn now:
// its goal is active and nothing else runs or waits.
func (t *thread) goalDue() bool {
	g := t.st.Goal
	return g != nil && g.Status == GoalActive && !t.archived && !t.compacting &&
		t.st.Running == "" && len(t.st.Queue) == 0
}

// continueGoal queues the goal's next continuation turn, or stops the
// goal when a bound is reached.
func (t *thread) continueGoal(ctx workflow.Context) {
	g := t.st.Goal
	if !t.goalsOn(ctx) {
		// Not reached (an old history has no goal), but a goal there must
		// not spin the loop.
		g.Status = GoalPaused
		return
	}
	if status, reason := t.goalLimit(g); status != "" {
		setGoalStatus(g, status, reason)
		g.Origin = GoalByAutomatic
		t.goalChanged(ctx, workflow.Now(ctx))
		return
	}
	g.Continuations++
	n := t.st.NextTurn
	t.st.NextTurn++
	t.st.Queue = append(t.st.Queue, QueuedTurn{TurnID: TurnWorkflowID(t.id, n), Number: n,
		Request: StartTurnRequest{Prompt: continuationPrompt(g)}, Goal: true})
}

// goalLimit says which bound, if any, stops the goal now.
func (t *thread) goalLimit(g *Goal) (status, reason string) {
	cfg := t.goalsConfig()
	switch {
	case g.TokenBudget != nil && g.TokensUsed >= *g.TokenBudget:
		return GoalBudgetLimited, fmt.Sprintf("its token budget is spent (%d of %d tokens)", g.TokensUsed, *g.TokenBudget)
	case g.Run.Turns >= cfg.MaxTurns:
		return GoalUsageLimited, fmt.Sprintf("it ran %d turns since it became active (goals.max_turns)", g.Run.Turns)
	case time.Duration(g.Run.Seconds)*time.Second >= cfg.MaxDuration:
		return GoalUsageLimited, fmt.Sprintf("its turns ran %s since it became active (goals.max_duration)", time.Duration(g.Run.Seconds)*time.Second)
	}
	return "", ""
}

// goalAtStart is what the thread knows of its goal when a turn starts:
// the turn counts towards the goal when that goal was active then.
type goalAtStart struct {
	created time.Time
	active  bool
	started time.Time
}

func (t *thread) goalTurnStarted(ctx workflow.Context) goalAtStart {
	s := goalAtStart{started: workflow.Now(ctx)}
	if g := t.st.Goal; g != nil {
		s.created, s.active = g.CreatedAt, g.Status == GoalActive
	}
	return s
}

// goalTurnEnded counts a turn's tokens and time towards the goal it ran
// for, and stops the goal when the turn shows it should: a person
// interrupted it (paused), or too many turns in a row failed (blocked).
func (t *thread) goalTurnEnded(ctx workflow.Context, at goalAtStart, res TurnResult) {
	// The turn's approval waits end with it (called here, as the thread
	// loop calls this at every turn's end).
	t.approvalsEnded(ctx)
	g := t.st.Goal
	if g == nil || !(g.Status == GoalActive || (at.active && g.CreatedAt.Equal(at.created))) {
		return
	}
	t.goalsOn(ctx)
	now := workflow.Now(ctx)
	// Waits for a person's approval do not count: nobody was there.
	secs := max(int64((now.Sub(at.started)-time.Duration(res.ApprovalWaitMs)*time.Millisecond)/time.Second), 0)
	g.TokensUsed += res.Usage.InputTokens + res.Usage.OutputTokens
	g.TimeUsedSeconds += secs
	g.Run.Seconds += secs
	g.Run.Turns++
	if g.Status == GoalActive {
		t.goalVerdict(g, res)
	}
	t.goalChanged(ctx, now)
}

// goalApprovalBound bounds the approvals of a continuation turn, which no
// one may be there to answer: past goals.approval_wait the turn stops
// (abort) and goalVerdict blocks the goal.
func (t *thread) goalApprovalBound(cfg ThreadConfig, q QueuedTurn) ThreadConfig {
	bound := t.goalsConfig().ApprovalWait
	if !q.Goal || bound <= 0 || (cfg.ApprovalTimeout > 0 && cfg.ApprovalTimeout < bound) {
		return cfg
	}
	cfg.ApprovalTimeout, cfg.ApprovalDefault = bound, DecisionAbort
	return cfg
}

// goalVerdict stops an active goal on what its turn's end says.
func (t *thread) goalVerdict(g *Goal, res TurnResult) {
	bound := t.goalsConfig().ApprovalWait
	switch {
	case bound > 0 && res.ApprovalWaitMs >= bound.Milliseconds():
		setGoalStatus(g, GoalBlocked, fmt.Sprintf("an approval waited %s with no one to answer it (goals.approval_wait)", bound))
		g.Origin = GoalByAutomatic
	case res.Status == StatusInterrupted && res.Error == "":
		setGoalStatus(g, GoalPaused, "its turn was interrupted")
		g.Origin = GoalByUser
	case res.Status == StatusFailed || res.Status == StatusInterrupted:
		g.Run.Failures++
		if max := t.goalsConfig().MaxFailedTurns; g.Run.Failures >= max {
			setGoalStatus(g, GoalBlocked, fmt.Sprintf("%d turns in a row failed; the last: %s", g.Run.Failures, oneLine(res.Error, 300)))
			g.Origin = GoalByAutomatic
		}
	default:
		g.Run.Failures = 0
	}
}

// answerGoalRequest runs a turn's goal tool call and answers the turn.
func (t *thread) answerGoalRequest(ctx workflow.Context, r GoalRequest) {
	t.goalsOn(ctx)
	rep := t.goalOp(ctx, r)
	rep.CallID = r.CallID
	if rep.Error == "" && t.st.Goal != nil {
		g := *t.st.Goal
		rep.Goal = &g
	}
	// The turn may have ended meanwhile (interrupted): then no one waits.
	_ = workflow.SignalExternalWorkflow(ctx, r.TurnID, "", SignalGoalReply, rep).Get(ctx, nil)
}

func (t *thread) goalOp(ctx workflow.Context, r GoalRequest) GoalReply {
	if t.st.Config.Goals == nil {
		return GoalReply{Error: "goals are off for this thread"}
	}
	switch r.Tool {
	case "get_goal":
		return GoalReply{}
	case "create_goal":
		return t.createGoal(ctx, r)
	case "update_goal":
		return t.updateGoal(ctx, r)
	}
	return GoalReply{Error: fmt.Sprintf("unknown goal tool %q", r.Tool)}
}

func (t *thread) createGoal(ctx workflow.Context, r GoalRequest) GoalReply {
	obj := strings.TrimSpace(r.Objective)
	if obj == "" {
		return GoalReply{Error: "objective is empty: say what must be true when the goal is done"}
	}
	if g := t.st.Goal; g != nil && g.Status != GoalComplete {
		return GoalReply{Error: fmt.Sprintf("this thread has a goal already (status %s): %s", g.Status, oneLine(g.Objective, 200))}
	}
	if msg := t.checkObjective(obj); msg != "" {
		return GoalReply{Error: msg}
	}
	if msg := t.checkBudget(r.TokenBudget); msg != "" {
		return GoalReply{Error: msg}
	}
	now := workflow.Now(ctx)
	g := &Goal{Objective: obj, Status: GoalActive, CreatedAt: now, Origin: GoalByModel, TokenBudget: r.TokenBudget}
	if t.st.Goal != nil {
		g.Seq = t.st.Goal.Seq
	}
	t.st.Goal = g
	t.goalChanged(ctx, now)
	return GoalReply{}
}

func (t *thread) updateGoal(ctx workflow.Context, r GoalRequest) GoalReply {
	g := t.st.Goal
	if g == nil {
		return GoalReply{Error: "this thread has no goal"}
	}
	switch r.Status {
	case GoalComplete, GoalBlocked, GoalPaused:
	default:
		return GoalReply{Error: fmt.Sprintf("status %q cannot be set here: use complete, blocked or paused", r.Status)}
	}
	if g.Status != GoalActive {
		return GoalReply{Error: fmt.Sprintf("the goal is %s, not active: only an active goal's status can be changed", g.Status)}
	}
	setGoalStatus(g, r.Status, "set to "+r.Status+" by the model")
	g.Origin = GoalByModel
	t.goalChanged(ctx, workflow.Now(ctx))
	return GoalReply{}
}

func orGoal(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
