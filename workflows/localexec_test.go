package workflows

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
)

// fakeHere answers ExecHere as a worker of the host would, by result.
type fakeHere struct {
	mu      sync.Mutex
	inputs  []activities.LocalExecInput
	forgot  [][]string
	result  func(n int, in activities.LocalExecInput) *activities.LocalExecOutput
	refusal error
}

func (f *fakeHere) ExecHere(_ context.Context, in activities.LocalExecInput) (*activities.LocalExecOutput, error) {
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	n := len(f.inputs)
	f.mu.Unlock()
	return f.result(n, in), f.refusal
}

func (f *fakeHere) ForgetCommands(_ context.Context, in activities.ForgetCommandsInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgot = append(f.forgot, in.Keys)
	return nil
}

func localCommandsEnv(t *testing.T, here *fakeHere, exec *fakeExec, commands int) (*testsuite.TestWorkflowEnvironment, *fakeModel) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n <= commands {
			return withCalls(n, "", shellCall("c"+itoa(n), "echo step")), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	mockExec(env, exec)
	env.OnActivity(a.ExecHere, mock.Anything, mock.Anything).Return(here.ExecHere)
	env.OnActivity(a.ForgetCommands, mock.Anything, mock.Anything).Return(here.ForgetCommands)
	env.OnSignalExternalWorkflow(mock.Anything, testTurnID, "", signalRecorded, mock.Anything).Return(
		func(_, _, _, _ string, _ any) error { return errors.New("a workflow may not signal itself") })
	return env, model
}

func localConfig() ThreadConfig {
	cfg := testConfig()
	cfg.Commands = CommandsLocal
	cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
	return cfg
}

func ran(out string) *activities.LocalExecOutput {
	return &activities.LocalExecOutput{Output: &activities.ExecOutput{ExitCode: 0, Output: out}}
}

// How a turn with local commands runs them, by what the local activity
// answers.
func TestLocalCommands(t *testing.T) {
	for _, tc := range []struct {
		name     string
		commands int
		here     func(n int, in activities.LocalExecInput) *activities.LocalExecOutput
		exec     func(in activities.ExecInput) (*activities.ExecOutput, error)
		check    func(t *testing.T, here *fakeHere, execs []activities.ExecInput, model *fakeModel, env *testsuite.TestWorkflowEnvironment)
	}{{
		// On its own host a quick command runs in the workflow task: no
		// Exec activity, and the turn forgets every record as it closes.
		name: "quick commands run in the task", commands: 2,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput { return ran("step\n") },
		check: func(t *testing.T, here *fakeHere, execs []activities.ExecInput, model *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Empty(t, execs, "no regular activity ran a command")
			require.Len(t, here.inputs, 2)
			require.Equal(t, "host", here.inputs[0].HostQueue)
			require.Equal(t, commandBudget, here.inputs[0].Budget)
			require.NotEqual(t, here.inputs[0].Key, here.inputs[1].Key)
			require.Empty(t, here.inputs[1].Forget, "the first command ran in the same workflow task: its record stays")
			require.Equal(t, [][]string{{here.inputs[0].Key, here.inputs[1].Key}}, here.forgot)
			require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "step")
		},
	}, {
		// A worker of another host leaves the command to the host's
		// queue, which records it before it runs (an earlier attempt may
		// have started it).
		name: "a worker of another host leaves it to the host", commands: 1,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
			return &activities.LocalExecOutput{Elsewhere: true}
		},
		check: func(t *testing.T, here *fakeHere, execs []activities.ExecInput, _ *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Len(t, execs, 1)
			require.Equal(t, here.inputs[0].Key, execs[0].Record)
			require.Empty(t, here.forgot, "nothing was recorded here")
		},
	}, {
		// A command whose record shows an earlier attempt started it is
		// reported interrupted, and not run.
		name: "one started before is interrupted", commands: 1,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
			return &activities.LocalExecOutput{StartedBefore: true}
		},
		check: func(t *testing.T, _ *fakeHere, execs []activities.ExecInput, model *fakeModel, env *testsuite.TestWorkflowEnvironment) {
			require.Empty(t, execs)
			items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
			require.Equal(t, StatusInterrupted, items[len(items)-1].Item.Status)
			require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "NOT run again")
		},
	}, {
		// A command still running after the budget goes on in a regular
		// activity on the queue of the worker that holds it.
		name: "a slow one is handed off", commands: 1,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
			return &activities.LocalExecOutput{Handoff: "k1", HandoffQueue: "host-sessions-7"}
		},
		exec: func(activities.ExecInput) (*activities.ExecOutput, error) {
			return &activities.ExecOutput{ExitCode: 3, Output: "slow\n"}, nil
		},
		check: func(t *testing.T, _ *fakeHere, execs []activities.ExecInput, model *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Len(t, execs, 1)
			require.Equal(t, "k1", execs[0].Resume)
			require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "Exit code: 3")
		},
	}, {
		// One workflow task runs at most maxLocalCommandsPerTask
		// commands; the next is a regular activity, which ends the task.
		name: "a task runs a bounded number", commands: maxLocalCommandsPerTask + 1,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput { return ran("step\n") },
		check: func(t *testing.T, here *fakeHere, execs []activities.ExecInput, _ *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Len(t, here.inputs, maxLocalCommandsPerTask)
			require.Len(t, execs, 1)
			require.Empty(t, execs[0].Record, "a regular activity of the task's own host")
		},
	}, {
		// And commands of a summed run time under maxLocalTimePerTask:
		// three of 200 ms (the third begins at 400 ms), then a regular
		// activity.
		name: "a task's local time is bounded", commands: 4,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
			out := ran("step\n")
			out.ElapsedMs, out.Output.DurationMs = 200, 190
			return out
		},
		check: func(t *testing.T, here *fakeHere, execs []activities.ExecInput, _ *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Len(t, here.inputs, 3)
			require.Len(t, execs, 1)
			require.Empty(t, execs[0].Record, "a regular activity of the task's own host")
		},
	}, {
		// And at most maxLocalOutputPerTask bytes of output.
		name: "a task's output is bounded", commands: 3,
		here: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
			return ran(strings.Repeat("x", maxLocalOutputPerTask/2))
		},
		check: func(t *testing.T, here *fakeHere, execs []activities.ExecInput, _ *fakeModel, _ *testsuite.TestWorkflowEnvironment) {
			require.Len(t, here.inputs, 2)
			require.Len(t, execs, 1)
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			here := &fakeHere{result: tc.here}
			exec := &fakeExec{result: tc.exec}
			env, model := localCommandsEnv(t, here, exec, tc.commands)
			env.ExecuteWorkflow(TurnWorkflow, turnInput(localConfig()))
			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status)
			tc.check(t, here, exec.calls(), model, env)
		})
	}
}
