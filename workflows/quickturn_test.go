package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// quickEnv is a thread whose model calls first wait in the workflow task
// (as by default), with its first turn run; replies come after a minute.
// children collects the results of the turns' workflows.
func quickEnv(t *testing.T, model *fakeModel) (*testsuite.TestWorkflowEnvironment, *[]TurnResult) {
	env := newEnv(t)
	mockModel(env, model)
	// A turn that made a local model call ends its task with a signal to
	// itself, which the server refuses (closeapart.go).
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", signalRecorded, mock.Anything).Return(
		func(_, _, _, _ string, _ any) error { return errors.New("a workflow may not signal itself") })
	var children []TurnResult
	env.SetOnChildWorkflowCompletedListener(func(_ *workflow.Info, v converter.EncodedValue, err error) {
		var res TurnResult
		if r, ok := TurnResultOf(err); ok {
			res = r
		} else if err == nil {
			require.NoError(t, v.Get(&res))
		}
		children = append(children, res)
	})
	return env, &children
}

func quickThread(env *testsuite.TestWorkflowEnvironment) {
	cfg := testConfig()
	cfg.ModelCalls = ModelCallsAuto
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg, First: &StartTurnRequest{Prompt: "first"}})
}

// A reply the model answers at once is answered by the thread: the update
// carries the turn's result and all its events, the thread has taken it
// in, the model was asked once, and the turn's workflow records the same
// result from what the thread fetched.
func TestQuickTurnAnswersWithItsResult(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}}
	env, children := quickEnv(t, model)
	var reply *turnStart
	var view ThreadView
	env.RegisterDelayedCallback(func() {
		reply = startTurn(env, StartTurnRequest{Prompt: "second", WantResult: true})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, 2*time.Minute)
	quickThread(env)
	requireCanceled(t, env)

	require.True(t, reply.done)
	require.NoError(t, reply.err)
	res := reply.resp.Result
	require.NotNil(t, res, "the reply was not answered with its result")
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, "answer 2", res.FinalMessage)
	require.Equal(t, 1, res.Steps)
	var types []string
	for i, e := range res.Tail {
		require.Equal(t, i+1, e.Seq)
		types = append(types, e.Type)
	}
	require.Equal(t, []string{EventTurnStarted, EventItemCompleted, EventTurnCompleted}, types)

	require.Len(t, model.inputs, 2, "a model call was made twice")
	require.Equal(t, quickModelBudget, model.inputs[1].Budget)
	require.Len(t, *children, 2)
	recorded := (*children)[1]
	require.Equal(t, res.Tail, recorded.Tail, "the turn's workflow recorded other events than the thread answered with")
	recorded.Tail = nil
	shown := *res
	shown.Tail = nil
	require.Equal(t, shown, recorded)

	require.Len(t, view.Turns, 2)
	require.Equal(t, shown, view.Turns[1])
	require.Equal(t, transcriptRef(2), view.Transcript)
	require.Empty(t, view.RunningTurn)
}

// A reply whose first answer asks for a tool is not answered at once, but
// its turn uses that answer: the model is asked once per step.
func TestQuickTurnHandsItsFirstAnswerToTheTurn(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 2 {
			return withCalls(n, "", shellCall("c1", "true")), nil
		}
		return answer(n, "answer "+itoa(n)), nil
	}}
	env, children := quickEnv(t, model)
	mockExec(env, &fakeExec{})
	var reply *turnStart
	env.RegisterDelayedCallback(func() {
		reply = startTurn(env, StartTurnRequest{Prompt: "second", WantResult: true, ApprovalPolicy: "never", SandboxMode: "danger-full-access"})
	}, time.Minute)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	quickThread(env)
	requireCanceled(t, env)

	require.NoError(t, reply.err)
	require.Nil(t, reply.resp.Result)
	require.Len(t, model.inputs, 3)
	require.Equal(t, []int{1, 1, 2}, []int{model.inputs[0].Step, model.inputs[1].Step, model.inputs[2].Step})
	require.Len(t, *children, 2)
	require.Equal(t, StatusCompleted, (*children)[1].Status, (*children)[1].Error)
	require.Equal(t, "answer 3", (*children)[1].FinalMessage)
	require.Equal(t, 2, (*children)[1].Steps)
}

// A turn sent without WantResult, or to a thread without a transcript,
// runs as before.
func TestQuickTurnOnlyWhenAsked(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}}
	env, _ := quickEnv(t, model)
	var reply *turnStart
	env.RegisterDelayedCallback(func() {
		reply = startTurn(env, StartTurnRequest{Prompt: "second"})
	}, time.Minute)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	quickThread(env)
	requireCanceled(t, env)
	require.NoError(t, reply.err)
	require.Nil(t, reply.resp.Result)
	require.Len(t, model.inputs, 2)
	require.Equal(t, modelCallBudget, model.inputs[1].Budget)
}

// The workflow of a turn its thread already took in (a quick turn's
// record) refuses a steer: the turn has ended, and the input would be
// dropped.
func TestQuickTurnRecordRefusesSteers(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "recorded"), nil
	}})
	in := turnInput(testConfig())
	in.Taken = true
	in.Prefetched = &Prefetched{Model: answer(1, "recorded")}
	var u updates
	env.RegisterDelayedCallback(func() {
		u.send(env, "steer", UpdateSteer, SteerRequest{ThreadID: testThreadID, TurnID: testTurnID, Prompt: "one more thing"})
	}, 0)
	env.ExecuteWorkflow(TurnWorkflow, in)
	require.ErrorContains(t, u.err("steer"), "no active turn to steer")
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, "recorded", res.FinalMessage)
}
