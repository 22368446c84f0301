package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
)

// archiveThread sends thread.archive and returns its outcome holder.
func archiveThread(env *testsuite.TestWorkflowEnvironment) *turnStart {
	o := &turnStart{}
	env.UpdateWorkflow(UpdateArchive, "", &testsuite.TestUpdateCallback{
		OnAccept:   func() { o.accepted = true },
		OnReject:   func(err error) { o.rejected = err },
		OnComplete: func(_ any, err error) { o.done, o.err = true, err },
	}, nil)
	return o
}

// Archiving is refused while a turn runs; once the thread is idle it
// completes the workflow.
func TestThreadArchive(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "sleep 1")), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Second).
		Return(&activities.ExecOutput{ExitCode: 0}, nil).Once()

	var first, queued, busy, archived *turnStart
	env.RegisterDelayedCallback(func() {
		first = startTurn(env, StartTurnRequest{Prompt: "first"})
		queued = archiveThread(env)
	}, 0)
	env.RegisterDelayedCallback(func() {
		busy = archiveThread(env)
	}, 5*time.Second)
	env.RegisterDelayedCallback(func() {
		archived = archiveThread(env)
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "an archived thread completes")
	requireAccepted(t, first, 1)
	require.False(t, queued.accepted)
	require.ErrorContains(t, queued.rejected, "has turn th/turn-1 waiting to start")
	require.False(t, busy.accepted)
	require.ErrorContains(t, busy.rejected, "is running turn th/turn-1")
	require.True(t, archived.accepted)
	require.True(t, archived.done)
	require.NoError(t, archived.err)
	require.Len(t, model.calls(), 2, "the turn ran to its end before the thread was archived")
}
