package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/interpreter-dev/interpreter/activities"
)

// A turn that names the running turn as ended waits behind it instead of
// being refused; the thread shows it as running from then on, and an
// interrupt is for it (the turn before is not cancelled). One that names
// another turn is refused as before.
func TestThreadQueuesTurnAfterAnEndedOne(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "sleep 3600")), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(time.Hour).
		Return(&activities.ExecOutput{ExitCode: 0}, nil).Once()
	var canceled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })

	var first, wrong, second *turnStart
	var queued, end ThreadView
	env.RegisterDelayedCallback(func() {
		first = startTurn(env, StartTurnRequest{Prompt: "first"})
	}, 0)
	env.RegisterDelayedCallback(func() {
		wrong = startTurn(env, StartTurnRequest{Prompt: "second", After: "th/turn-9"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		second = startTurn(env, StartTurnRequest{Prompt: "second", After: "th/turn-1"})
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		queued = viewThread(t, env)
		env.SignalWorkflow(SignalInterrupt, nil)
	}, 3*time.Minute)
	env.RegisterDelayedCallback(func() {
		end = viewThread(t, env)
		env.CancelWorkflow()
	}, 3*time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)

	requireAccepted(t, first, 1)
	require.False(t, wrong.accepted)
	require.ErrorContains(t, wrong.rejected, "is running turn th/turn-1")
	requireAccepted(t, second, 2)
	require.Equal(t, "th/turn-2", queued.RunningTurn)
	require.Empty(t, queued.Turns)

	require.NotContains(t, canceled, "Exec", "the turn before is not interrupted")
	require.Empty(t, end.RunningTurn)
	require.Len(t, end.Turns, 2)
	require.Equal(t, StatusCompleted, end.Turns[0].Status, end.Turns[0].Error)
	require.Equal(t, "done", end.Turns[0].FinalMessage)
	require.Equal(t, "th/turn-2", end.Turns[1].TurnID)
	require.Equal(t, StatusInterrupted, end.Turns[1].Status, end.Turns[1].Error)
}
