package workflows

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

// fakeTurns records the turns a run asks for and answers as told.
type fakeTurns struct {
	mu     sync.Mutex
	inputs []AutomationTurnInput
	answer func(AutomationTurnInput) (AutomationRun, error)
}

func (f *fakeTurns) RunTurn(_ context.Context, in AutomationTurnInput) (AutomationRun, error) {
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	if f.answer != nil {
		return f.answer(in)
	}
	return AutomationRun{Status: StatusCompleted, ThreadID: in.ThreadID, TurnID: in.ThreadID + "/turn-1", FinalMessage: "done"}, nil
}

func promptSpec(newThread bool) AutomationSpec {
	return AutomationSpec{Name: "nightly", Prompt: "summarize the day", NewThread: newThread, TaskQueue: "q", Config: testConfig()}
}

// runAutomation runs one firing, as the schedule names it, and returns
// its result.
func runAutomation(t *testing.T, turns AutomationTurns, runID string, spec AutomationSpec) AutomationRun {
	t.Helper()
	env := newEnv(t)
	env.RegisterWorkflow(AutomationWorkflow)
	env.RegisterActivity(&AutomationActivities{Turns: turns})
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: runID})
	env.ExecuteWorkflow(AutomationWorkflow, spec)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var run AutomationRun
	require.NoError(t, env.GetWorkflowResult(&run))
	return run
}

func TestAutomationRunsGoToTheAutomationsOwnThread(t *testing.T) {
	f := &fakeTurns{}
	spec := promptSpec(false)
	r1 := runAutomation(t, f, "automation-nightly-run-2026-12-02T06:00:00Z", spec)
	r2 := runAutomation(t, f, "automation-nightly-run-2026-12-02T07:00:00Z", spec)
	require.Len(t, f.inputs, 2)
	for _, in := range f.inputs {
		require.Equal(t, "automation-nightly-thread", in.ThreadID)
		require.Equal(t, "summarize the day", in.Spec.Prompt)
	}
	// Each run's turn is its own request: a retry of one is deduplicated,
	// the next run is not.
	require.NotEqual(t, f.inputs[0].RequestID, f.inputs[1].RequestID)
	require.Equal(t, "automation-nightly-run-2026-12-02T06:00:00Z/"+testRunID, f.inputs[0].RequestID)
	require.Equal(t, AutomationRun{Status: StatusCompleted, ThreadID: "automation-nightly-thread", TurnID: "automation-nightly-thread/turn-1", FinalMessage: "done"}, r1)
	require.Equal(t, r1, r2)
}

// testRunID is the run id the test environment gives every workflow.
const testRunID = "default-test-run-id"

// A fresh thread per run is named after the run's id (unique per run,
// where the schedule's workflow ids are unique per second only).
func TestAutomationNewThreadPerRun(t *testing.T) {
	f := &fakeTurns{}
	run := runAutomation(t, f, "automation-nightly-run-A", promptSpec(true))
	require.Len(t, f.inputs, 1)
	require.Equal(t, "automation-nightly-"+testRunID, f.inputs[0].ThreadID)
	require.Equal(t, "automation-nightly-"+testRunID, run.ThreadID)
	require.Equal(t, "automation-nightly-run-A/"+testRunID, f.inputs[0].RequestID)
}

func TestAutomationRunResults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(AutomationTurnInput) (AutomationRun, error)
		want   AutomationRun
		calls  int
	}{
		{
			name: "a failed turn is the run's result",
			answer: func(in AutomationTurnInput) (AutomationRun, error) {
				return AutomationRun{Status: StatusFailed, ThreadID: in.ThreadID, TurnID: "t/turn-2", Error: "model unreachable"}, nil
			},
			want: AutomationRun{Status: StatusFailed, ThreadID: "automation-nightly-thread", TurnID: "t/turn-2", Error: "model unreachable"}, calls: 1,
		},
		{
			name: "a busy thread is recorded, not retried",
			answer: func(in AutomationTurnInput) (AutomationRun, error) {
				return AutomationRun{Status: AutomationBusy, ThreadID: in.ThreadID, Error: "the thread was busy"}, nil
			},
			want: AutomationRun{Status: AutomationBusy, ThreadID: "automation-nightly-thread", Error: "the thread was busy"}, calls: 1,
		},
		{
			name: "a refusal for good fails the run, not the workflow",
			answer: func(AutomationTurnInput) (AutomationRun, error) {
				return AutomationRun{}, temporal.NewNonRetryableApplicationError("the automation's thread has ended", "ThreadEnded", nil)
			},
			want: AutomationRun{Status: StatusFailed, ThreadID: "automation-nightly-thread", Error: "the automation's thread has ended"}, calls: 1,
		},
		{
			name: "a lost worker's turn is asked for again with the same request",
			answer: func() func(AutomationTurnInput) (AutomationRun, error) {
				n := 0
				return func(in AutomationTurnInput) (AutomationRun, error) {
					if n++; n == 1 {
						return AutomationRun{}, errors.New("connection reset")
					}
					return AutomationRun{Status: StatusCompleted, ThreadID: in.ThreadID}, nil
				}
			}(),
			want: AutomationRun{Status: StatusCompleted, ThreadID: "automation-nightly-thread"}, calls: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTurns{answer: tc.answer}
			got := runAutomation(t, f, "automation-nightly-run-X", promptSpec(false))
			require.Equal(t, tc.want, got)
			require.Len(t, f.inputs, tc.calls)
			for _, in := range f.inputs {
				require.Equal(t, "automation-nightly-run-X/"+testRunID, in.RequestID)
			}
		})
	}
}

func TestAutomationWithoutTurnsFailsTheRun(t *testing.T) {
	got := runAutomation(t, nil, "automation-nightly-run-X", promptSpec(false))
	require.Equal(t, StatusFailed, got.Status)
	require.Contains(t, got.Error, "cannot start turns")
}

func commandSpec() AutomationSpec {
	cfg := testConfig()
	cfg.SandboxMode = "workspace-write"
	return AutomationSpec{Name: "sync", Command: "mcporter call x.y", TaskQueue: "q", Config: cfg}
}

// runCommandJob runs a command job whose activity answers as told; it
// must be called exactly once.
func runCommandJob(t *testing.T, out *activities.CommandJobOutput, err error) (AutomationRun, activities.CommandJobInput) {
	t.Helper()
	env := newEnv(t)
	env.RegisterWorkflow(AutomationWorkflow)
	var got activities.CommandJobInput
	env.OnActivity(a.RunCommandJob, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CommandJobInput) (*activities.CommandJobOutput, error) {
			got = in
			return out, err
		}).Once()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "automation-sync-run-1"})
	env.ExecuteWorkflow(AutomationWorkflow, commandSpec())
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)
	var run AutomationRun
	require.NoError(t, env.GetWorkflowResult(&run))
	return run, got
}

func TestCommandJobResultIsItsExitAndOutput(t *testing.T) {
	run, in := runCommandJob(t, &activities.CommandJobOutput{Exec: activities.ExecOutput{ExitCode: 3, Output: "partial", DurationMs: 12}}, nil)
	exit := 3
	require.Equal(t, AutomationRun{Status: StatusFailed, ExitCode: &exit, Output: "partial", DurationMs: 12}, run)
	require.Equal(t, []string{"bash", "-lc", "mcporter call x.y"}, in.Exec.Command)
	require.Equal(t, testRunID, in.RunID)
	require.Equal(t, "workspace-write", in.Exec.SandboxMode)
	require.Equal(t, "/work", in.Exec.WorkspaceRoot)
	require.Equal(t, DefaultCommandJobTimeout.Milliseconds(), in.Exec.TimeoutMs)
}

func TestCommandJobCutOffByAKillIsInterruptedNotRerun(t *testing.T) {
	// The activity runs once (MaximumAttempts 1): a heartbeat timeout
	// is what the server reports when its worker died.
	hb := temporal.NewHeartbeatTimeoutError(activities.ExecProgress{CallID: "command", Tail: []byte("half done"), Total: 9, ElapsedMs: 4000})
	run, _ := runCommandJob(t, nil, hb)
	require.Equal(t, StatusInterrupted, run.Status)
	require.Contains(t, run.Error, "NOT run again")
	require.Equal(t, int64(4000), run.DurationMs)
	require.Contains(t, run.Output, "half done")
}

func TestCommandJobNotRunOnASkillConflict(t *testing.T) {
	run, _ := runCommandJob(t, &activities.CommandJobOutput{Error: "the command was NOT run: skills a and b both declare x"}, nil)
	require.Equal(t, StatusFailed, run.Status)
	require.Contains(t, run.Error, "both declare")
}

func TestAutomationNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"nightly", true}, {"a", true}, {"daily-report_2", true}, {"0x", true},
		{"", false}, {"Nightly", false}, {"-x", false}, {"a b", false}, {"a/b", false}, {"x/turn-1", false},
		{"a123456789012345678901234567890123456789012345678901234567890123", false},
	} {
		err := CheckAutomationName(tc.name)
		require.Equal(t, tc.ok, err == nil, "%q: %v", tc.name, err)
		if tc.ok {
			require.Equal(t, tc.name, AutomationNameOf(AutomationScheduleID(tc.name)))
		}
	}
	require.Equal(t, "", AutomationNameOf("interpreter-memory-consolidation-schedule"))
}
