package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// A turn started with turn code 1 takes the changes made before it without
// a version marker each; a turn of an older build (code 0) still asks, and
// both run the new side (skills found in-process on the host).
func TestTurnCodeDecidesWithoutVersionMarkers(t *testing.T) {
	for _, tc := range []struct {
		code  int
		asked []string
	}{
		{code: 0, asked: []string{skillsVersion, skillsHereVersion}},
		{code: turnCode, asked: nil},
	} {
		env := newEnv(t)
		var asked []string
		env.OnGetVersion(mock.Anything, workflow.DefaultVersion, 1).Run(func(args mock.Arguments) {
			asked = append(asked, args.String(0))
		}).Return(workflow.Version(1))
		var local []string
		env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
			if info.ActivityType.Name == "DiscoverSkills" {
				local = append(local, info.ActivityType.Name)
			}
		})
		mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			return answer(n, "done"), nil
		}})
		in := turnInput(testConfig())
		in.Code = tc.code
		env.ExecuteWorkflow(TurnWorkflow, in)

		require.Equal(t, StatusCompleted, turnResult(t, env).Status, "code %d", tc.code)
		require.Equal(t, tc.asked, asked, "code %d", tc.code)
		require.Equal(t, []string{"DiscoverSkills"}, local, "code %d", tc.code)
	}
}

// The thread starts every new turn with the current turn code.
func TestThreadStartsTurnsWithTheCurrentCode(t *testing.T) {
	env := newEnv(t)
	var codes []int
	env.OnWorkflow(TurnWorkflow, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in TurnInput) (TurnResult, error) {
		codes = append(codes, in.Code)
		return TurnResult{TurnID: in.TurnID, Number: in.Number, Status: StatusCompleted, Transcript: in.Transcript}, nil
	})
	var start *turnStart
	env.RegisterDelayedCallback(func() { start = startTurn(env, StartTurnRequest{Prompt: "hello"}) }, 0)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	requireAccepted(t, start, 1)
	require.Equal(t, []int{turnCode}, codes)
}
