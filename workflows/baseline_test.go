package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// A turn whose input carries another turn code than this build's fails at
// once, before any model call, with a non-retryable error naming the turn,
// its code and the build.
func TestTurnOfAnotherCodeFailsAtOnce(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "done"), nil }}
	mockModel(env, model)
	in := turnInput(testConfig())
	in.Code = turnCode + 1
	env.ExecuteWorkflow(TurnWorkflow, in)

	require.True(t, env.IsWorkflowCompleted())
	var app *temporal.ApplicationError
	require.True(t, errors.As(env.GetWorkflowError(), &app), "%v", env.GetWorkflowError())
	require.Equal(t, ErrTypeTurnCode, app.Type())
	require.True(t, app.NonRetryable())
	require.Contains(t, app.Message(), "turn th/turn-1 carries turn code 2; this build (release 0.1.0, build unversioned) runs turn code 1 only")
	require.Empty(t, model.calls())
}

// A turn this build's worker could not run (the panic policy failed it,
// here for a history it could not replay) is a failed turn of its thread,
// whose error names the cause; the thread goes on.
func TestThreadReportsATurnItCouldNotRun(t *testing.T) {
	env := newEnv(t)
	env.OnWorkflow(TurnWorkflow, mock.Anything, mock.Anything).Return(func(workflow.Context, TurnInput) (TurnResult, error) {
		// What the SDK fails such a turn with.
		return TurnResult{}, temporal.NewApplicationErrorWithCause("Workflow failed on panic due to FailWorkflow workflow panic policy", "",
			errors.New("[TMPRL1100] nondeterministic workflow definition"))
	})
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "hello"}) }, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env) }, 30*time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	require.Len(t, view.Turns, 1)
	require.Equal(t, StatusFailed, view.Turns[0].Status)
	require.Contains(t, view.Turns[0].Error, "turn ended abnormally: ")
	require.Contains(t, view.Turns[0].Error, "FailWorkflow workflow panic policy: [TMPRL1100] nondeterministic workflow definition")
}
