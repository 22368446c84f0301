package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// turnStart records what became of one turn.start update.
type turnStart struct {
	accepted bool
	rejected error
	done     bool
	resp     StartTurnResponse
	err      error
}

// startTurn sends turn.start; the outcome is filled in as the test
// environment processes it (read it from a later callback or after the run).
func startTurn(env *testsuite.TestWorkflowEnvironment, req StartTurnRequest) *turnStart {
	o := &turnStart{}
	env.UpdateWorkflow(UpdateStartTurn, "", &testsuite.TestUpdateCallback{
		OnAccept: func() { o.accepted = true },
		OnReject: func(err error) { o.rejected = err },
		OnComplete: func(v any, err error) {
			o.done, o.err = true, err
			if r, ok := v.(StartTurnResponse); ok {
				o.resp = r
			}
		},
	}, req)
	return o
}

func viewThread(t *testing.T, env *testsuite.TestWorkflowEnvironment) ThreadView {
	t.Helper()
	v, err := env.QueryWorkflow(QueryThread)
	require.NoError(t, err)
	var view ThreadView
	require.NoError(t, v.Get(&view))
	return view
}

func requireAccepted(t *testing.T, o *turnStart, number int) {
	t.Helper()
	require.NoError(t, o.rejected)
	require.True(t, o.accepted)
	require.True(t, o.done)
	require.NoError(t, o.err)
	require.Equal(t, StartTurnResponse{TurnID: TurnWorkflowID(testThreadID, number), Number: number}, o.resp)
}

// requireCanceled checks the thread ended by the test's CancelWorkflow (a
// thread never ends by itself).
func requireCanceled(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	var canceled *temporal.CanceledError
	require.True(t, errors.As(env.GetWorkflowError(), &canceled), "thread ended with %v", env.GetWorkflowError())
}

func TestThreadRunsTurnsInOrder(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}}
	mockModel(env, model)

	var empty, first, second *turnStart
	var afterFirst, afterSecond ThreadView
	env.RegisterDelayedCallback(func() {
		empty = startTurn(env, StartTurnRequest{Prompt: " \n\t"})
		first = startTurn(env, StartTurnRequest{Prompt: "first"})
	}, 0)
	env.RegisterDelayedCallback(func() {
		afterFirst = viewThread(t, env)
		second = startTurn(env, StartTurnRequest{Prompt: "second", Model: "other-model", Cwd: "/elsewhere"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		afterSecond = viewThread(t, env)
		env.CancelWorkflow()
	}, 2*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)

	require.ErrorContains(t, empty.rejected, "prompt is empty")
	require.False(t, empty.accepted)
	requireAccepted(t, first, 1)
	requireAccepted(t, second, 2)

	require.Empty(t, afterFirst.RunningTurn)
	require.Len(t, afterFirst.Turns, 1)
	r1 := afterFirst.Turns[0]
	require.Equal(t, TurnResult{TurnID: "th/turn-1", Number: 1, Status: StatusCompleted, FinalMessage: "answer 1",
		Usage: usage(100, 10), Steps: 1, Transcript: transcriptRef(1), NextItem: 1, ContextTokens: 110}, r1)
	require.Equal(t, transcriptRef(1), afterFirst.Transcript)
	require.Equal(t, usage(100, 10), afterFirst.Usage)

	require.Len(t, afterSecond.Turns, 2)
	r2 := afterSecond.Turns[1]
	require.Equal(t, "th/turn-2", r2.TurnID)
	require.Equal(t, 2, r2.Number)
	require.Equal(t, StatusCompleted, r2.Status)
	require.Equal(t, 2, r2.NextItem, "item numbers continue across turns")
	require.Equal(t, transcriptRef(2), afterSecond.Transcript)
	require.Equal(t, harness.Usage{InputTokens: 200, CachedInputTokens: 100, OutputTokens: 20}, afterSecond.Usage)
	require.Equal(t, "other-model", afterSecond.Config.Model, "overrides stick")
	require.Equal(t, "/elsewhere", afterSecond.Config.Cwd)

	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "th/turn-1", calls[0].TurnID)
	require.Empty(t, calls[0].Transcript)
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: "first"}}, calls[0].Append)
	require.Equal(t, "th/turn-2", calls[1].TurnID)
	require.Equal(t, testThreadID, calls[1].ThreadID)
	require.Equal(t, transcriptRef(1), calls[1].Transcript, "the second turn continues the first one's transcript")
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: "second"}}, calls[1].Append)
	require.Equal(t, "other-model", calls[1].Model)
	require.Equal(t, "/elsewhere", calls[1].Env.Cwd)
}

func TestThreadRejectsTurnWhileRunningAndInterrupts(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "sleep 3600")), nil
		}
		return answer(n, "fresh start"), nil
	}}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(time.Hour).
		Return(&activities.ExecOutput{ExitCode: 0}, nil).Once()
	var canceled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })

	var first, busy, third *turnStart
	var running, afterInterrupt, end ThreadView
	env.RegisterDelayedCallback(func() {
		first = startTurn(env, StartTurnRequest{Prompt: "first"})
	}, 0)
	env.RegisterDelayedCallback(func() {
		running = viewThread(t, env)
		busy = startTurn(env, StartTurnRequest{Prompt: "second"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(SignalInterrupt, nil)
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		afterInterrupt = viewThread(t, env)
		third = startTurn(env, StartTurnRequest{Prompt: "third"})
	}, 3*time.Minute)
	env.RegisterDelayedCallback(func() {
		end = viewThread(t, env)
		env.CancelWorkflow()
	}, 4*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)

	requireAccepted(t, first, 1)
	require.Equal(t, "th/turn-1", running.RunningTurn)
	require.Empty(t, running.Turns)
	require.False(t, busy.accepted)
	require.ErrorContains(t, busy.rejected, "is running turn th/turn-1")

	require.Empty(t, afterInterrupt.RunningTurn)
	require.Len(t, afterInterrupt.Turns, 1)
	r1 := afterInterrupt.Turns[0]
	require.Equal(t, StatusInterrupted, r1.Status)
	require.Empty(t, r1.Error)
	require.Equal(t, transcriptRef(1), r1.Transcript, "the model's answer before the interrupt is kept")
	require.Equal(t, []string{"Exec"}, canceled, "the running command is cancelled")

	requireAccepted(t, third, 2) // a rejected update does not use a turn number
	require.Len(t, end.Turns, 2)
	require.Equal(t, StatusCompleted, end.Turns[1].Status)
	require.Equal(t, "fresh start", end.Turns[1].FinalMessage)
	require.Len(t, model.calls(), 2, "the interrupted turn does not call the model again")
}

// An interrupt when no turn runs is a no-op.
func TestThreadInterruptWhileIdle(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	var first *turnStart
	var view ThreadView
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalInterrupt, nil) }, 0)
	env.RegisterDelayedCallback(func() { first = startTurn(env, StartTurnRequest{Prompt: "hi"}) }, time.Minute)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, 2*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	requireAccepted(t, first, 1)
	require.Len(t, view.Turns, 1)
	require.Equal(t, StatusCompleted, view.Turns[0].Status)
}

// A thread continues as new once idle with a long history, carrying its
// state; the continued run keeps numbering turns and items and continues the
// transcript.
func TestThreadContinuesAsNew(t *testing.T) {
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}}

	env := newEnv(t)
	mockModel(env, model)
	var first *turnStart
	env.RegisterDelayedCallback(func() { first = startTurn(env, StartTurnRequest{Prompt: "first"}) }, 0)
	env.RegisterDelayedCallback(func() {
		env.SetCurrentHistoryLength(threadHistoryLimit + 1)
		env.SignalWorkflow(SignalInterrupt, nil) // any event wakes the thread
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})

	require.True(t, env.IsWorkflowCompleted())
	requireAccepted(t, first, 1)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "thread ended with %v", env.GetWorkflowError())
	require.Equal(t, "ThreadWorkflow", can.WorkflowType.Name)
	var next ThreadInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Equal(t, testThreadID, next.ThreadID)
	require.NotNil(t, next.State)
	st := *next.State
	require.Equal(t, testConfig(), st.Config)
	require.Equal(t, 2, st.NextTurn)
	require.Equal(t, 1, st.NextItem)
	require.Equal(t, transcriptRef(1), st.Transcript)
	require.Len(t, st.Turns, 1)
	require.Empty(t, st.Queue)
	require.Empty(t, st.Running)

	env = newEnv(t)
	mockModel(env, model)
	var second *turnStart
	var view ThreadView
	env.RegisterDelayedCallback(func() { second = startTurn(env, StartTurnRequest{Prompt: "second"}) }, 0)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, next)
	requireCanceled(t, env)

	requireAccepted(t, second, 2)
	require.Len(t, view.Turns, 2)
	require.Equal(t, 2, view.Turns[1].NextItem)
	require.Equal(t, harness.Usage{InputTokens: 200, CachedInputTokens: 100, OutputTokens: 20}, view.Usage)
	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "th/turn-2", calls[1].TurnID)
	require.Equal(t, transcriptRef(1), calls[1].Transcript)
}

// A turn that ends after its tools ran but before the model read their
// outputs (max_steps here; an interrupt, the turn timeout or a model error
// do the same) leaves a transcript whose last tool calls have no outputs.
// Providers reject such a conversation (OpenAI: "No tool output found for
// function call ..."), so every later turn of the thread would fail. The
// outputs must reach the next turn's first model call.
func TestThreadCarriesToolOutputsOfUnfinishedTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "make")), nil
		}
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	mockExec(env, &fakeExec{})
	cfg := testConfig()
	cfg.MaxSteps = 1
	var view ThreadView
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "first"}) }, 0)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "second"}) }, time.Minute)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, 2*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)

	require.Len(t, view.Turns, 2)
	require.Equal(t, StatusFailed, view.Turns[0].Status)
	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, transcriptRef(1), calls[1].Transcript)
	// If a fix stores the outputs in the transcript instead, check the
	// reference changed here rather than the appended entries.
	out := toolOutput(t, calls[1].Append, "c1")
	require.Contains(t, out.Text, "Exit code: 0")
	require.Equal(t, harness.Entry{Kind: harness.KindUser, Text: "second"}, calls[1].Append[len(calls[1].Append)-1])
}

// Turns submitted by signal are queued in order, not lost; an empty one is
// dropped.
func TestSubmittedTurnsAreQueued(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	var view ThreadView
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(SignalStartTurn, StartTurnRequest{Prompt: "one"})
		env.SignalWorkflow(SignalStartTurn, StartTurnRequest{Prompt: " "})
		env.SignalWorkflow(SignalStartTurn, StartTurnRequest{Prompt: "two"})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	require.Len(t, view.Turns, 2)
	require.Equal(t, 1, view.Turns[0].Number)
	require.Equal(t, 2, view.Turns[1].Number)
	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "two", calls[1].Append[len(calls[1].Append)-1].Text)
}
