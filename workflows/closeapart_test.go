package workflows

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/activities"
)

// A turn whose last model call answered as a local activity, inside the
// workflow task that would close the turn, first ends that task (with the
// signal to itself that the server refuses) and closes in the next; one
// whose last call ran as a regular activity closes at once.
func TestTurnClosesApartFromItsLocalModelCall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handoff bool
		want    int // signals the turn sends itself
	}{
		{name: "answered locally", want: 1},
		{name: "handed off", handoff: true, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
				if tc.handoff && in.Budget > 0 && in.Step == 2 {
					return &activities.ModelOutput{Handoff: "h"}, nil
				}
				if in.Step == 1 {
					return withCalls(1, "", shellCall("c1", "true")), nil
				}
				return answer(in.Step, "done"), nil
			})
			mockExec(env, &fakeExec{})
			// As on a server: each regular activity's result comes in a new
			// workflow task, whose start is a later point in history.
			length := 3
			env.SetCurrentHistoryLength(length)
			env.SetOnActivityCompletedListener(func(*activity.Info, converter.EncodedValue, error) {
				length += 6
				env.SetCurrentHistoryLength(length)
			})
			sent := 0
			env.OnSignalExternalWorkflow(mock.Anything, testTurnID, "", signalRecorded, mock.Anything).Return(
				func(_, _, _, _ string, _ any) error {
					sent++
					return errors.New("a workflow may not signal itself")
				})
			cfg := testConfig()
			cfg.ModelCalls = ModelCallsAuto
			cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
			env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status, res.Error)
			require.Equal(t, "done", res.FinalMessage)
			require.Equal(t, tc.want, sent)
		})
	}
}

// The signal that ends the task of a turn's last local model call carries
// the turn's result with the log's tail (ending with the turn's end), for
// a follower reading history; without the entries only the thread reads.
func TestClosingSignalCarriesTheResult(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(in.Step, "done"), nil
	})
	env.SetCurrentHistoryLength(3)
	var got []TurnResult
	env.OnSignalExternalWorkflow(mock.Anything, testTurnID, "", signalRecorded, mock.Anything).Return(
		func(_, _, _, _ string, arg any) error {
			res, ok := arg.(TurnResult)
			require.True(t, ok, "signal input %T", arg)
			got = append(got, res)
			return errors.New("a workflow may not signal itself")
		})
	cfg := testConfig()
	cfg.ModelCalls = ModelCallsAuto
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status, res.Error)
	require.Len(t, got, 1)
	sent := got[0]
	require.Equal(t, res.TurnID, sent.TurnID)
	require.Equal(t, "done", sent.FinalMessage)
	require.Nil(t, sent.Unsent)
	require.NotEmpty(t, sent.Tail)
	require.Equal(t, EventTurnCompleted, sent.Tail[len(sent.Tail)-1].Type)
	require.Equal(t, res.Tail, sent.Tail)
}

// A sub-agent's notice that reaches the turn while it closes (here,
// delivered as the closing task sends its signal) is not lost: the turn's
// result hands it to the next turn.
func TestNoticeDuringTheCloseGoesToTheNextTurn(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(in.Step, "done"), nil
	})
	env.SetCurrentHistoryLength(3)
	env.OnSignalExternalWorkflow(mock.Anything, testTurnID, "", signalRecorded, mock.Anything).Return(
		func(_, _, _, _ string, _ any) error {
			env.SignalWorkflow(SignalAgentNotice, AgentNotice{Text: "agent A ended"})
			return errors.New("a workflow may not signal itself")
		})
	cfg := testConfig()
	cfg.ModelCalls = ModelCallsAuto
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status, res.Error)
	var texts []string
	for _, e := range res.Unsent {
		texts = append(texts, e.Text)
	}
	require.Equal(t, []string{"agent A ended"}, texts)
}
