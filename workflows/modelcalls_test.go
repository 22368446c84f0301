package workflows

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

// How the model calls of a two-step turn run, by the turn's settings, and what the first attempt of each call answers.
func TestModelCallsWaitInTheWorkflowTaskThenHandOff(t *testing.T) {
	handoff := func(in activities.ModelInput) (*activities.ModelOutput, error) {
		return &activities.ModelOutput{Handoff: "h-" + itoa(in.Step)}, nil
	}
	for _, tc := range []struct {
		name   string
		calls  string
		local  bool
		budget func(in activities.ModelInput) (*activities.ModelOutput, error) // nil: answers
		want   []string                                                        // how each attempt ran
		resume []string                                                        // Resume of the regular attempts
		failed string
		gone   bool // the handoff queue's worker does not answer
	}{
		{name: "fast model", want: []string{"local", "local"}},
		{name: "slow model: handed off", budget: handoff,
			want: []string{"local", "activity", "local", "activity"}, resume: []string{"h-1", "h-2"}},
		{name: "slow model: taken over on its worker's queue",
			budget: func(in activities.ModelInput) (*activities.ModelOutput, error) {
				return &activities.ModelOutput{Handoff: "h-" + itoa(in.Step), HandoffQueue: "calls-q"}, nil
			},
			want: []string{"local", "activity@calls-q", "local", "activity@calls-q"}, resume: []string{"h-1", "h-2"}},
		{name: "its worker is gone: afresh", gone: true,
			budget: func(in activities.ModelInput) (*activities.ModelOutput, error) {
				return &activities.ModelOutput{Handoff: "h-" + itoa(in.Step), HandoffQueue: "calls-q"}, nil
			},
			want:   []string{"local", "activity@calls-q", "activity", "local", "activity@calls-q", "activity"},
			resume: []string{"h-1", "", "h-2", ""}},
		{name: "a permanent failure ends the turn",
			budget: func(activities.ModelInput) (*activities.ModelOutput, error) {
				return nil, temporal.NewNonRetryableApplicationError("model refused: 401", activities.ErrTypeProvider, nil)
			},
			want: []string{"local"}, failed: "model refused: 401"},
		{name: "always activities", calls: ModelCallsActivity, want: []string{"activity", "activity"}, resume: []string{"", ""}},
		{name: "always local", local: true, want: []string{"local", "local"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			var mu sync.Mutex
			var how, resume []string
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				switch {
				case info.ActivityType.Name != "CallModel":
				case info.TaskQueue == "calls-q":
					how = append(how, "activity@calls-q")
				default:
					how = append(how, "activity")
				}
			})
			env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
				if info.ActivityType.Name == "CallModel" {
					how = append(how, "local")
				}
			})
			env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
				if in.Budget > 0 {
					require.Equal(t, modelCallBudget, in.Budget)
					if tc.budget != nil {
						return tc.budget(in)
					}
				} else if !tc.local {
					mu.Lock()
					resume = append(resume, in.Resume)
					mu.Unlock()
					if tc.gone && in.Resume != "" {
						return nil, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
					}
				}
				if in.Step == 1 {
					return withCalls(1, "", shellCall("c1", "true")), nil
				}
				return answer(in.Step, "done"), nil
			})
			mockExec(env, &fakeExec{})
			cfg := testConfig()
			cfg.ModelCalls, cfg.LocalModelCalls = tc.calls, tc.local
			cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
			env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

			res := turnResult(t, env)
			if tc.failed != "" {
				require.Equal(t, StatusFailed, res.Status)
				require.Equal(t, tc.failed, res.Error)
			} else {
				require.Equal(t, StatusCompleted, res.Status, res.Error)
				require.Equal(t, "done", res.FinalMessage)
			}
			require.Equal(t, tc.want, how)
			require.Equal(t, tc.resume, resume)
		})
	}
}
