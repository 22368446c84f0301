package workflows

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// bgConfig is the test config with background terminals (wake-up as
// given).
func bgConfig(wakeup bool) ThreadConfig {
	cfg := testConfig()
	cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
	cfg.BackgroundTerminals = &BackgroundTerminalsConfig{Wakeup: wakeup}
	return cfg
}

func execCommandCall(callID, script string) activities.DecodedCall {
	return activities.DecodedCall{
		Call: harness.ToolCall{CallID: callID, Name: "exec_command", Arguments: `{"cmd":"` + script + `"}`},
		Inv:  harness.Invocation{Tool: harness.ToolExecCommand, Script: script},
	}
}

// bgModel: the first call starts a build in the background (its session
// outlives the turn), every other call answers; an answer to a prompt
// given in script runs that call instead.
func bgModel(more map[string]activities.DecodedCall) *fakeModel {
	return &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", execCommandCall("x1", "make build")), nil
		}
		for _, e := range in.Append {
			if c, ok := more[e.Text]; ok && e.Kind == harness.KindUser {
				return withCalls(n, "", c), nil
			}
		}
		return answer(n, "answer "+itoa(n)), nil
	}}
}

// mockSession starts every exec_command as a session still running.
func mockSession(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(a.ExecCommand, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ExecCommandInput) (*activities.SessionOutput, error) {
		return &activities.SessionOutput{SessionID: in.SessionID, Running: true, Queue: "sessions-q", Output: "building\n",
			ChunkID: "c0ffee", Tail: "building\n"}, nil
	})
	env.OnActivity(a.CloseSessions, mock.Anything, mock.Anything).Return(&activities.CloseSessionsOutput{}, nil)
}

// mockExit makes the session's process exit after d (virtual time) with
// code 3; a watch stopped before then reports nothing. It counts the
// watches started.
func mockExit(env *testsuite.TestWorkflowEnvironment, d time.Duration, watches *atomic.Int32) {
	env.OnActivity(a.WatchSession, mock.Anything, mock.Anything).After(d).Return(func(ctx context.Context, in activities.WatchSessionInput) (*activities.WatchSessionOutput, error) {
		watches.Add(1)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &activities.WatchSessionOutput{SessionID: in.SessionID, Exited: true, ExitCode: 3, Tail: "building\nerror: tests failed\n"}, nil
	})
}

// notices counts the background-terminal notices the model was sent.
func countNotices(calls []activities.ModelInput) (n int, at []int) {
	for i, c := range calls {
		for _, e := range c.Append {
			if e.Kind == harness.KindUser && strings.Contains(e.Text, "<background_terminal_notification>") {
				n++
				at = append(at, i+1)
			}
		}
	}
	return n, at
}

func listTerminals(t *testing.T, env *testsuite.TestWorkflowEnvironment) []BackgroundTerminal {
	t.Helper()
	v, err := env.QueryWorkflow(QueryBackgroundTerminals)
	require.NoError(t, err)
	var out []BackgroundTerminal
	require.NoError(t, v.Get(&out))
	return out
}

// A session still running when its turn ends stays open and listed;
// when its process exits, the idle thread starts a turn of its own that
// tells the model the exit code and the last output, once.
func TestBackgroundTerminalWakesIdleThreadOnce(t *testing.T) {
	env := newEnv(t)
	model := bgModel(nil)
	mockModel(env, model)
	mockSession(env)
	var watches atomic.Int32
	mockExit(env, 10*time.Minute, &watches)
	var listed, after []BackgroundTerminal
	var view ThreadView
	var ended []EndedTerminal
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() { listed = listTerminals(t, env) }, time.Minute)
	env.RegisterDelayedCallback(func() {
		after, view, ended = listTerminals(t, env), viewThread(t, env), endedTerminals(t, env)
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
	requireCanceled(t, env)

	require.Len(t, listed, 1, "the session outlives its turn")
	require.Equal(t, BackgroundTerminal{ProcessID: "1000", Command: "make build", Cwd: "/work", ItemID: "item_0"}, listed[0])
	require.Empty(t, after, "an exited session is no longer listed")
	require.Len(t, view.Turns, 2, "the exit started one turn")
	calls := model.calls()
	require.Len(t, calls, 3)
	n, at := countNotices(calls)
	require.Equal(t, 1, n, "told once")
	require.Equal(t, []int{3}, at)
	text := calls[2].Append[0].Text
	require.Contains(t, text, `"session_id":1000`)
	require.Contains(t, text, `"exit_code":3`)
	require.Contains(t, text, "error: tests failed")
	require.Equal(t, int32(1), watches.Load())
	require.Len(t, ended, 1, "the front ends can complete its item with how it ended")
	require.Equal(t, "item_0", ended[0].ItemID)
	require.Equal(t, TerminalExited, ended[0].Status)
	require.NotNil(t, ended[0].ExitCode)
	require.Equal(t, 3, *ended[0].ExitCode)
	require.Contains(t, ended[0].Output, "error: tests failed")
	require.GreaterOrEqual(t, ended[0].DurationMs, (10 * time.Minute).Milliseconds())
}

func endedTerminals(t *testing.T, env *testsuite.TestWorkflowEnvironment) []EndedTerminal {
	t.Helper()
	v, err := env.QueryWorkflow(QueryEndedTerminals)
	require.NoError(t, err)
	var out []EndedTerminal
	require.NoError(t, v.Get(&out))
	return out
}

// With the wake-up off, the exit starts no turn; the next turn the user
// starts tells the model, before its prompt.
func TestBackgroundTerminalWakeupOff(t *testing.T) {
	env := newEnv(t)
	model := bgModel(nil)
	mockModel(env, model)
	mockSession(env)
	var watches atomic.Int32
	mockExit(env, 10*time.Minute, &watches)
	var idle ThreadView
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() {
		idle = viewThread(t, env)
		startTurn(env, StartTurnRequest{Prompt: "and now?"})
	}, time.Hour)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(false)})
	requireCanceled(t, env)

	require.Len(t, idle.Turns, 1, "no turn was started by the exit")
	calls := model.calls()
	require.Len(t, calls, 3)
	n, at := countNotices(calls)
	require.Equal(t, 1, n)
	require.Equal(t, []int{3}, at)
	require.Len(t, calls[2].Append, 2)
	require.Equal(t, "and now?", calls[2].Append[1].Text, "the notice comes before the prompt")
}

// An exit that comes as the user starts a turn is told once: in that
// turn, or in a turn of its own, never both.
func TestBackgroundTerminalWakeupRacesUserTurn(t *testing.T) {
	for _, at := range []time.Duration{10 * time.Minute, 10*time.Minute - time.Millisecond, 10*time.Minute + time.Millisecond} {
		env := newEnv(t)
		model := bgModel(nil)
		mockModel(env, model)
		mockSession(env)
		var watches atomic.Int32
		mockExit(env, 10*time.Minute, &watches)
		var user *turnStart
		env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
		env.RegisterDelayedCallback(func() { user = startTurn(env, StartTurnRequest{Prompt: "status?"}) }, at)
		env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
		env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
		requireCanceled(t, env)

		calls := model.calls()
		n, _ := countNotices(calls)
		require.Equal(t, 1, n, "user turn at %s: told once", at)
		if user.rejected != nil {
			require.ErrorContains(t, user.rejected, "is running turn", "refused only while the wake-up turn runs")
			continue
		}
		require.True(t, user.accepted)
		var prompts int
		for _, c := range calls {
			for _, e := range c.Append {
				if e.Text == "status?" {
					prompts++
				}
			}
		}
		require.Equal(t, 1, prompts, "user turn at %s ran once", at)
	}
}

// An exit while a turn runs joins that turn's next model request; no
// turn of its own follows.
func TestBackgroundTerminalExitJoinsRunningTurn(t *testing.T) {
	env := newEnv(t)
	model := bgModel(map[string]activities.DecodedCall{"run the tests": shellCall("s1", "sleep 600")})
	mockModel(env, model)
	mockSession(env)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(20*time.Minute).Return(&activities.ExecOutput{Output: "ok\n"}, nil)
	var watches atomic.Int32
	mockExit(env, 10*time.Minute, &watches)
	var view ThreadView
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "run the tests"}) }, time.Minute)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, 2*time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
	requireCanceled(t, env)

	calls := model.calls()
	require.Len(t, calls, 4)
	n, at := countNotices(calls)
	require.Equal(t, 1, n)
	require.Equal(t, []int{4}, at, "the running turn's next request")
	require.Len(t, view.Turns, 2, "no wake-up turn")
	require.Empty(t, view.Turns[1].ExecSessions, "the turn dropped the ended session")
}

// Continue-as-new carries the open session; the next run watches it
// again, and its exit wakes that run once.
func TestBackgroundTerminalSurvivesContinueAsNew(t *testing.T) {
	env := newEnv(t)
	model := bgModel(nil)
	mockModel(env, model)
	mockSession(env)
	var watches atomic.Int32
	mockExit(env, 10*time.Hour, &watches)
	// The watch heartbeats minutes apart: the thread tells its worker to
	// stop it.
	var stops []activities.StopCommandInput
	env.OnActivity(a.StopCommand, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.StopCommandInput) (activities.StopCommandOutput, error) {
		stops = append(stops, in)
		return activities.StopCommandOutput{Stopped: true}, nil
	})
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() {
		env.SetCurrentHistoryLength(threadHistoryLimit + 1)
		env.SignalWorkflow(SignalInterrupt, nil)
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "thread ended with %v", env.GetWorkflowError())
	var next ThreadInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, next.State.ExecSessions, 1, "the open session is carried")
	require.Equal(t, 1000, next.State.ExecSessions[0].ID)
	require.Empty(t, next.State.BgNotices, "the stopped watch reported nothing")
	require.Len(t, stops, 1, "the watch was told to stop")
	require.Equal(t, activities.WatchStopKey(1000), stops[0].CallID)

	env = newEnv(t)
	mockModel(env, model)
	mockSession(env)
	mockExit(env, 10*time.Minute, &watches)
	var view ThreadView
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, next)
	requireCanceled(t, env)
	require.Len(t, view.Turns, 2, "the exit woke the new run")
	n, _ := countNotices(model.calls())
	require.Equal(t, 1, n)
}

// A person's terminate ends the session and tells the next turn; it
// starts no turn.
func TestBackgroundTerminalTerminate(t *testing.T) {
	env := newEnv(t)
	model := bgModel(nil)
	mockModel(env, model)
	mockSession(env)
	var watches atomic.Int32
	mockExit(env, 10*time.Hour, &watches)
	var done, unknown bool
	var bad error
	var view ThreadView
	var left []BackgroundTerminal
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateTerminateTerminal, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { bad = err },
			OnComplete: func(v any, err error) { require.NoError(t, err); done = v.(bool) }}, TerminateTerminalRequest{ProcessID: "1000"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateTerminateTerminal, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { bad = err },
			OnComplete: func(v any, err error) { require.NoError(t, err); unknown = !v.(bool) }}, TerminateTerminalRequest{ProcessID: "1000"})
		env.UpdateWorkflow(UpdateTerminateTerminal, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { bad = err },
			OnComplete: func(any, error) {}}, TerminateTerminalRequest{ProcessID: "x"})
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		view, left = viewThread(t, env), listTerminals(t, env)
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
	requireCanceled(t, env)
	require.True(t, done, "terminated")
	require.True(t, unknown, "a second terminate finds nothing")
	require.ErrorContains(t, bad, "invalid background terminal process id")
	require.Len(t, view.Turns, 1, "terminate wakes nothing")
	require.Empty(t, left)
	env.AssertActivityCalled(t, "CloseSessions", mock.Anything, activities.CloseSessionsInput{ThreadID: testThreadID, IDs: []int{1000}})
}

// A watch whose worker process is gone (nobody takes it) reports the
// session ended with its worker, once, with the output the thread kept.
func TestBackgroundTerminalWorkerGoneIsToldOnce(t *testing.T) {
	env := newEnv(t)
	model := bgModel(nil)
	mockModel(env, model)
	mockSession(env)
	env.OnActivity(a.WatchSession, mock.Anything, mock.Anything).Return((*activities.WatchSessionOutput)(nil),
		temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil))
	var view ThreadView
	var left []BackgroundTerminal
	var ended []EndedTerminal
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "build it"}) }, 0)
	env.RegisterDelayedCallback(func() {
		view, left, ended = viewThread(t, env), listTerminals(t, env), endedTerminals(t, env)
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: bgConfig(true)})
	requireCanceled(t, env)
	require.Empty(t, left)
	require.Len(t, view.Turns, 2)
	calls := model.calls()
	n, _ := countNotices(calls)
	require.Equal(t, 1, n)
	text := calls[len(calls)-1].Append[0].Text
	require.Contains(t, text, `"status":"worker_stopped"`)
	require.Contains(t, text, "building")
	require.Contains(t, text, "NOT run again")
	require.Len(t, ended, 1)
	require.Equal(t, TerminalWorkerStopped, ended[0].Status)
	require.Nil(t, ended[0].ExitCode)
}
