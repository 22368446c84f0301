package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// A long turn continues as new; the chain of runs behaves as one turn.
func TestTurnContinuesAsNew(t *testing.T) {
	const shellSteps = 20
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n > shellSteps {
			return answer(n, "all done"), nil
		}
		return withCalls(n, "", shellCall("c"+itoa(n), "step "+itoa(n))), nil
	}}
	exec := &fakeExec{}
	cfg := testConfig()
	cfg.HistoryEventsCAN = 30
	first := turnInput(cfg)

	res, runs, lastEnv := runTurnChain(t, first, func(env *testsuite.TestWorkflowEnvironment) {
		mockModel(env, model)
		mockExec(env, exec)
	})

	for i, next := range runs {
		run := i + 1
		require.Equal(t, first.TurnID, next.TurnID)
		require.Equal(t, first.Prompt, next.Prompt)
		require.Equal(t, cfg, next.Config)
		st := next.State
		require.Equal(t, run-1, st.Runs)
		require.Equal(t, 3*run, st.Step, "three steps fit in 30 events")
		require.Equal(t, transcriptRef(st.Step), st.Transcript)
		require.Equal(t, st.Step, st.NextItem, "one command item per step")
		require.Len(t, st.Pending, 1, "the last command's output is carried to the next model call")
		require.Equal(t, "c"+itoa(st.Step), st.Pending[0].CallID)
		require.Equal(t, 1+2*st.Step, st.LastSeq)
		require.Len(t, st.Events, st.LastSeq)
		require.Equal(t, st.LastSeq, st.Events[len(st.Events)-1].Seq)
		require.Equal(t, harness.Usage{InputTokens: 100 * int64(st.Step), CachedInputTokens: 50 * int64(st.Step), OutputTokens: 10 * int64(st.Step)}, st.Usage)
	}

	require.Len(t, runs, 6)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, "all done", res.FinalMessage)
	require.Equal(t, shellSteps+1, res.Steps)
	require.Equal(t, harness.Usage{InputTokens: 2100, CachedInputTokens: 1050, OutputTokens: 210}, res.Usage)
	require.Len(t, exec.calls(), shellSteps, "no command ran twice across runs")

	calls := model.calls()
	require.Len(t, calls, shellSteps+1)
	for i, c := range calls {
		n := i + 1
		require.Equal(t, n, c.Step)
		if n == 1 {
			require.Empty(t, c.Transcript)
			continue
		}
		require.Equal(t, transcriptRef(n-1), c.Transcript, "call %d", n)
		require.Len(t, c.Append, 1, "call %d", n)
		require.Equal(t, "c"+itoa(n-1), c.Append[0].CallID, "call %d", n)
	}

	page := queryEvents(t, lastEnv)
	requireSeqs(t, page.Events)
	require.Len(t, page.Events, 1+2*shellSteps+2)
	require.Equal(t, EventTurnStarted, page.Events[0].Type)
	require.Len(t, itemEvents(page.Events, ItemCommandExecution), 2*shellSteps)
	n := 0
	for _, e := range page.Events {
		if e.Type == EventTurnStarted {
			n++
		}
	}
	require.Equal(t, 1, n, "a continued run does not start the turn again")
}

// runTurnChain runs a turn and every run it continues as new into, each in a
// fresh environment set up by setup, until one returns a result. The test
// environment does not count history events, so each run pretends every
// activity adds six (scheduled, started, completed, and a workflow task).
// It returns the result, the inputs of the continued runs, and the last
// run's environment.
func runTurnChain(t *testing.T, in TurnInput, setup func(*testsuite.TestWorkflowEnvironment)) (TurnResult, []TurnInput, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	var runs []TurnInput
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for run := 1; run <= 50; run++ {
		env := newEnv(t)
		env.SetStartTime(now) // virtual time goes on across runs
		setup(env)
		completed := 0
		env.SetOnActivityCompletedListener(func(*activity.Info, converter.EncodedValue, error) {
			completed++
			env.SetCurrentHistoryLength(6 * completed)
		})
		env.ExecuteWorkflow(TurnWorkflow, in)
		require.True(t, env.IsWorkflowCompleted())
		now = env.Now()
		err := env.GetWorkflowError()
		if res, ok := TurnResultOf(err); ok {
			return res, runs, env
		}
		if err == nil {
			var res TurnResult
			require.NoError(t, env.GetWorkflowResult(&res))
			return res, runs, env
		}
		var can *workflow.ContinueAsNewError
		require.True(t, errors.As(err, &can), "run %d: %v", run, err)
		require.Equal(t, "TurnWorkflow", can.WorkflowType.Name)
		var next TurnInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
		require.NotNil(t, next.State, "run %d continued without its state", run)
		runs = append(runs, next)
		in = next
	}
	require.FailNow(t, "the turn never finished")
	return TurnResult{}, nil, nil
}

// The turn timeout bounds the whole turn, not each run of it: a turn that
// continues as new must not get a fresh timer.
func TestTurnTimeoutSpansContinueAsNew(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n > 5 {
			return answer(n, "done"), nil
		}
		return withCalls(n, "", shellCall("c"+itoa(n), "slow "+itoa(n))), nil
	}}
	cfg := testConfig()
	cfg.TurnTimeout = 10 * time.Minute
	cfg.HistoryEventsCAN = 10 // one step per run
	var start time.Time
	res, runs, last := runTurnChain(t, turnInput(cfg), func(env *testsuite.TestWorkflowEnvironment) {
		if start.IsZero() {
			start = env.Now()
		}
		mockModel(env, model)
		env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(4*time.Minute).
			Return(&activities.ExecOutput{ExitCode: 0}, nil)
	})
	require.NotEmpty(t, runs)
	require.Equal(t, StatusInterrupted, res.Status, "a 20-minute turn ran past its 10-minute timeout (%d runs)", len(runs)+1)
	require.Contains(t, res.Error, "timed out")
	require.Equal(t, start.Add(10*time.Minute), last.Now())
}
