package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// goalConfig is the test config with goals on.
func goalConfig(g GoalsConfig) ThreadConfig {
	cfg := testConfig()
	cfg.Goals = &g
	return cfg
}

// slowModel installs m as the model, each call taking a minute of the
// workflow clock, so callbacks can act between continuation turns.
func slowModel(env *testsuite.TestWorkflowEnvironment, m *fakeModel) {
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(time.Minute).Return(m.CallModel)
	// The test environment delivers signals to child workflows only: a
	// turn's goal request to its thread goes through this mock.
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", mock.Anything, mock.Anything).Return(
		func(_, id, _, name string, arg any) error {
			if id == testThreadID {
				env.SignalWorkflow(name, arg)
				return nil
			}
			return env.SignalWorkflowByID(id, name, arg)
		})
}

// goalCall is a model output calling a goal tool.
func goalCall(n int, callID, tool, args string) *activities.ModelOutput {
	return withCalls(n, "", activities.DecodedCall{
		Call: harness.ToolCall{CallID: callID, Name: tool, Arguments: args},
		Inv:  harness.Invocation{Tool: harness.ToolExternal, External: tool, Arguments: args},
	})
}

type goalSet struct {
	goal     Goal
	rejected error
	err      error
}

func setGoalUpdate(env *testsuite.TestWorkflowEnvironment, r GoalSetRequest) *goalSet {
	o := &goalSet{}
	env.UpdateWorkflow(UpdateSetGoal, "", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { o.rejected = err },
		OnComplete: func(v any, err error) {
			o.err = err
			if g, ok := v.(Goal); ok {
				o.goal = g
			}
		},
	}, r)
	return o
}

func queryGoal(t *testing.T, env *testsuite.TestWorkflowEnvironment) *Goal {
	t.Helper()
	v, err := env.QueryWorkflow(QueryGoal)
	require.NoError(t, err)
	var g *Goal
	require.NoError(t, v.Get(&g))
	return g
}

// userPrompts are the user inputs of the model calls, in order.
func userPrompts(calls []activities.ModelInput) []string {
	var out []string
	for _, c := range calls {
		for _, e := range c.Append {
			if e.Kind == harness.KindUser {
				out = append(out, e.Text)
			}
		}
	}
	return out
}

// A goal set on an idle thread starts a turn; each turn that ends with
// the goal active is followed by a continuation, until the model marks
// the goal complete. Tokens and time are counted from the turns.
func TestGoalRunsUntilComplete(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		switch n {
		case 3:
			return goalCall(n, "c3", "get_goal", "{}"), nil
		case 4:
			return goalCall(n, "c4", "update_goal", `{"status":"complete"}`), nil
		}
		return answer(n, "worked "+itoa(n)), nil
	}}
	slowModel(env, model)
	var set *goalSet
	env.RegisterDelayedCallback(func() {
		set = setGoalUpdate(env, GoalSetRequest{Objective: "make the tests pass", Origin: GoalByUser})
	}, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
	requireCanceled(t, env)

	require.NoError(t, set.rejected)
	require.NoError(t, set.err)
	require.Equal(t, GoalActive, set.goal.Status)
	g := view.Goal
	require.NotNil(t, g)
	require.Equal(t, GoalComplete, g.Status)
	require.Equal(t, GoalByModel, g.Origin)
	require.Len(t, view.Turns, 3, "turns 1 and 2 answered, turn 3 read the goal and completed it")
	require.Equal(t, 3, g.Continuations)
	require.Equal(t, int64(5*110), g.TokensUsed, "five model calls of 110 tokens")
	require.Equal(t, int64(5*60), g.TimeUsedSeconds, "five model calls of a minute")
	calls := model.calls()
	require.Len(t, calls, 5, "no turn after the goal is complete")
	prompts := userPrompts(calls)
	require.Len(t, prompts, 3)
	for _, p := range prompts {
		require.Contains(t, p, "[goal continuation]")
		require.Contains(t, p, "make the tests pass")
	}
	require.Contains(t, toolOutput(t, calls[3].Append, "c3").Text, `"objective":"make the tests pass"`)
	require.Contains(t, toolOutput(t, calls[4].Append, "c4").Text, `"status":"complete"`)
	var names []string
	for _, x := range calls[0].External {
		names = append(names, x.Name)
	}
	require.Equal(t, []string{"get_goal", "create_goal", "update_goal"}, names)
}

// The token budget stops the goal as budgetLimited once spent; the turn
// bound stops it as usageLimited.
func TestGoalLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    GoalsConfig
		budget *int64
		status string
		turns  int
	}{
		{"budget", GoalsConfig{}, budget(250), GoalBudgetLimited, 3},
		{"turns", GoalsConfig{MaxTurns: 2}, nil, GoalUsageLimited, 2},
		{"duration", GoalsConfig{MaxDuration: 3 * time.Minute}, nil, GoalUsageLimited, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
				return answer(n, "more"), nil
			}}
			slowModel(env, model)
			env.RegisterDelayedCallback(func() {
				setGoalUpdate(env, GoalSetRequest{Objective: "go on", TokenBudget: tc.budget})
			}, 0)
			var view ThreadView
			env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
			env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(tc.cfg)})
			requireCanceled(t, env)
			require.Equal(t, tc.status, view.Goal.Status, view.Goal.Reason)
			require.Equal(t, GoalByAutomatic, view.Goal.Origin)
			require.NotEmpty(t, view.Goal.Reason)
			require.Len(t, view.Turns, tc.turns)
		})
	}
}

// A person pauses the goal between turns: no continuation follows; on
// resume they start again. Clearing ends it the same way.
func TestGoalPauseResumeClear(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "step"), nil
	}}
	slowModel(env, model)
	env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "refactor"}) }, 0)
	var paused, resumed *goalSet
	var atPause, atResume int
	env.RegisterDelayedCallback(func() {
		paused = setGoalUpdate(env, GoalSetRequest{Status: GoalPaused})
	}, 90*time.Second) // during turn 2
	env.RegisterDelayedCallback(func() {
		atPause = len(model.calls())
		resumed = setGoalUpdate(env, GoalSetRequest{Status: GoalActive})
	}, 30*time.Minute)
	var cleared bool
	env.RegisterDelayedCallback(func() {
		atResume = len(model.calls())
		env.UpdateWorkflow(UpdateClearGoal, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(error) {},
			OnComplete: func(v any, err error) { cleared, _ = v.(bool) }})
	}, 30*time.Minute+150*time.Second) // during the third turn after the resume
	var goal *Goal
	var calls int
	env.RegisterDelayedCallback(func() {
		goal, calls = queryGoal(t, env), len(model.calls())
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
	requireCanceled(t, env)

	require.NoError(t, paused.err)
	require.Equal(t, GoalPaused, paused.goal.Status)
	require.Equal(t, 2, atPause, "the turn running at the pause finished; none followed")
	require.Equal(t, GoalActive, resumed.goal.Status)
	require.Equal(t, 0, resumed.goal.Run.Turns, "a resumed goal's bounds start afresh")
	require.Equal(t, 4, atResume, "two turns after the resume answered; the third is running")
	require.True(t, cleared)
	require.Nil(t, goal)
	require.Equal(t, 5, calls, "the turn running at the clear finished; none followed")
}

// The model marks the goal blocked: the loop stops. Repeated failing
// turns block it too.
func TestGoalBlocked(t *testing.T) {
	t.Run("by the model", func(t *testing.T) {
		env := newEnv(t)
		model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			if n == 2 {
				return goalCall(n, "b", "update_goal", `{"status":"blocked"}`), nil
			}
			return answer(n, "need a key"), nil
		}}
		slowModel(env, model)
		env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "deploy"}) }, 0)
		var view ThreadView
		env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
		env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
		requireCanceled(t, env)
		require.Equal(t, GoalBlocked, view.Goal.Status)
		require.Len(t, view.Turns, 2)
		require.Len(t, model.calls(), 3)
	})
	t.Run("by failing turns", func(t *testing.T) {
		env := newEnv(t)
		model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			return nil, temporal.NewNonRetryableApplicationError("provider down", "Provider", nil)
		}}
		slowModel(env, model)
		env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "deploy"}) }, 0)
		var view ThreadView
		env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, 10*time.Hour)
		cfg := goalConfig(GoalsConfig{MaxFailedTurns: 2})
		env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
		requireCanceled(t, env)
		require.Equal(t, GoalBlocked, view.Goal.Status)
		require.Contains(t, view.Goal.Reason, "2 turns in a row failed")
		require.Len(t, view.Turns, 2)
	})
}

// The model creates a goal when asked; a second create is refused while
// the first is not complete. Goals off: no tools, and set is refused.
func TestGoalCreatedByModel(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		switch n {
		case 1:
			return goalCall(n, "g1", "create_goal", `{"objective":"port the parser","token_budget":1000}`), nil
		case 2:
			return goalCall(n, "g2", "create_goal", `{"objective":"something else"}`), nil
		}
		return answer(n, "ok"), nil
	}}
	slowModel(env, model)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "work on porting the parser until done"}) }, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
	requireCanceled(t, env)
	calls := model.calls()
	require.Contains(t, toolOutput(t, calls[1].Append, "g1").Text, `"status":"active"`)
	out := toolOutput(t, calls[2].Append, "g2")
	require.True(t, out.Error)
	require.Contains(t, out.Text, "has a goal already")
	require.Equal(t, "port the parser", view.Goal.Objective)
	require.Equal(t, GoalBudgetLimited, view.Goal.Status, "its continuations ran until the budget of 1000 was spent")
	require.Len(t, view.Turns, 1+7, "330 tokens in the first turn, 110 in each continuation")

	off := newEnv(t)
	slowModel(off, model)
	var set *goalSet
	off.RegisterDelayedCallback(func() { set = setGoalUpdate(off, GoalSetRequest{Objective: "x"}) }, 0)
	off.RegisterDelayedCallback(func() { off.CancelWorkflow() }, time.Minute)
	off.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	require.ErrorContains(t, set.rejected, "goals are off")
}

// A user's turn sent while the goal is active goes first; the
// continuation follows it, and the user's turn counts towards the goal.
func TestGoalContinuationAndUserTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 3 {
			return goalCall(n, "done", "update_goal", `{"status":"complete"}`), nil
		}
		return answer(n, "ok"), nil
	}}
	slowModel(env, model)
	var user *turnStart
	env.RegisterDelayedCallback(func() {
		setGoalUpdate(env, GoalSetRequest{Objective: "ship it"})
	}, 0)
	env.RegisterDelayedCallback(func() {
		// Sent as turn 1 ends: the thread takes it before it queues the
		// next continuation, or refuses it while a turn runs.
		env.SignalWorkflow(SignalStartTurn, StartTurnRequest{Prompt: "also update the changelog"})
		user = &turnStart{}
	}, time.Minute)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
	requireCanceled(t, env)
	require.NotNil(t, user)
	prompts := userPrompts(model.calls())
	require.Len(t, prompts, 3)
	require.Contains(t, prompts[0], "[goal continuation]")
	require.Equal(t, "also update the changelog", prompts[1], "the user's turn came before the next continuation")
	require.Contains(t, prompts[2], "[goal continuation]")
	require.Equal(t, GoalComplete, view.Goal.Status)
	require.Equal(t, 2, view.Goal.Continuations)
	require.Equal(t, int64(4*110), view.Goal.TokensUsed, "the user's turn counts too")
}

// A thread that continues as new in the middle of a goal keeps it, and
// the new run goes on with the continuations.
func TestGoalSurvivesContinueAsNew(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 4 {
			return goalCall(n, "done", "update_goal", `{"status":"complete"}`), nil
		}
		return answer(n, "ok"), nil
	}}
	env := newEnv(t)
	slowModel(env, model)
	env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "long job", Origin: GoalByUser}) }, 0)
	env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(threadHistoryLimit + 1) }, 90*time.Second)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: goalConfig(GoalsConfig{})})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "thread ended with %v", env.GetWorkflowError())
	var next ThreadInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.State.Goal)
	require.Equal(t, GoalActive, next.State.Goal.Status)
	require.Equal(t, 2, next.State.Goal.Continuations, "the turn running when the limit passed ended first")
	require.Len(t, model.calls(), 2)

	env = newEnv(t)
	slowModel(env, model)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, next)
	requireCanceled(t, env)
	require.Equal(t, GoalComplete, view.Goal.Status)
	require.Equal(t, 4, view.Goal.Continuations)
	require.Equal(t, int64(5*110), view.Goal.TokensUsed)
	for _, p := range userPrompts(model.calls()) {
		require.True(t, strings.HasPrefix(p, "[goal continuation]"), p)
	}
}

func budget(n int64) *int64 { return &n }

// A continuation turn that waits for an approval waits durably, and the
// goal's clock does not run while it waits.
func TestGoalClockStopsWhileAnApprovalWaits(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		switch n {
		case 1:
			return withCalls(n, "", shellCall("c1", "make deploy")), nil
		case 2:
			return goalCall(n, "done", "update_goal", `{"status":"complete"}`), nil
		}
		return answer(n, "deployed"), nil
	}}
	slowModel(env, model)
	nt := &notices{}
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nt.NotifyApproval)
	cfg := untrusted()
	cfg.Goals = &GoalsConfig{}
	cfg.ApprovalTimeout, cfg.ApprovalDefault = 10*time.Minute, DecisionDeny
	env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "deploy"}) }, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)
	require.Len(t, nt.all(), 1, "the approval's notice went out")
	require.Equal(t, GoalComplete, view.Goal.Status)
	require.Equal(t, int64(3*60), view.Goal.TimeUsedSeconds, "three model calls of a minute; the ten minutes' wait left out")
	require.GreaterOrEqual(t, view.Turns[0].ApprovalWaitMs, int64(10*60*1000))
}

// goals.approval_wait: a continuation turn's approval that waits longer
// stops the turn and blocks the goal, saying why.
func TestGoalBlockedByALongApprovalWait(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(n, "", shellCall("c"+itoa(n), "make deploy")), nil
	}}
	slowModel(env, model)
	nt := &notices{}
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nt.NotifyApproval)
	cfg := untrusted()
	cfg.Goals = &GoalsConfig{ApprovalWait: 5 * time.Minute}
	env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "deploy"}) }, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)
	require.Equal(t, GoalBlocked, view.Goal.Status)
	require.Contains(t, view.Goal.Reason, "an approval waited 5m0s")
	require.Len(t, view.Turns, 1)
	require.Equal(t, StatusInterrupted, view.Turns[0].Status)
	require.Len(t, nt.all(), 1)
}
