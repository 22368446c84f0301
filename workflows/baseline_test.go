package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

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
	require.Contains(t, app.Message(), "turn th/turn-1 carries turn code 2; this build (unversioned) runs turn code 1 only")
	require.Empty(t, model.calls())
}
