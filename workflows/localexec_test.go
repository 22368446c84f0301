package workflows

import (
	"context"
	"errors"
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

// On its own host a quick command runs in the workflow task: no Exec
// activity, and the turn forgets every record as it closes.
func TestLocalCommandsRunInTheTask(t *testing.T) {
	here := &fakeHere{result: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
		return &activities.LocalExecOutput{Output: &activities.ExecOutput{ExitCode: 0, Output: "step\n"}}
	}}
	exec := &fakeExec{}
	env, model := localCommandsEnv(t, here, exec, 2)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(localConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Empty(t, exec.calls(), "no regular activity ran a command")
	require.Len(t, here.inputs, 2)
	require.Equal(t, "host", here.inputs[0].HostQueue)
	require.Equal(t, commandBudget, here.inputs[0].Budget)
	require.NotEqual(t, here.inputs[0].Key, here.inputs[1].Key)
	require.Empty(t, here.inputs[1].Forget, "the first command ran in the same workflow task: its record stays")
	require.Equal(t, [][]string{{here.inputs[0].Key, here.inputs[1].Key}}, here.forgot)
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "step")
}

// A worker of another host leaves the command to the host's queue, which
// records it before it runs (an earlier attempt may have started it).
func TestLocalCommandsElsewhereRunOnTheHost(t *testing.T) {
	here := &fakeHere{result: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
		return &activities.LocalExecOutput{Elsewhere: true}
	}}
	exec := &fakeExec{}
	env, _ := localCommandsEnv(t, here, exec, 1)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(localConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	execs := exec.calls()
	require.Len(t, execs, 1)
	require.Equal(t, here.inputs[0].Key, execs[0].Record)
	require.Empty(t, here.forgot, "nothing was recorded here")
}

// A command whose record shows an earlier attempt started it is
// reported interrupted, and not run.
func TestLocalCommandStartedBeforeIsInterrupted(t *testing.T) {
	here := &fakeHere{result: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
		return &activities.LocalExecOutput{StartedBefore: true}
	}}
	exec := &fakeExec{}
	env, model := localCommandsEnv(t, here, exec, 1)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(localConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Empty(t, exec.calls())
	items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
	require.Equal(t, StatusInterrupted, items[len(items)-1].Item.Status)
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "NOT run again")
}

// A command still running after the budget goes on in a regular
// activity on the queue of the worker that holds it.
func TestLocalCommandHandedOff(t *testing.T) {
	here := &fakeHere{result: func(int, activities.LocalExecInput) *activities.LocalExecOutput {
		return &activities.LocalExecOutput{Handoff: "k1", HandoffQueue: "host-sessions-7"}
	}}
	exec := &fakeExec{result: func(in activities.ExecInput) (*activities.ExecOutput, error) {
		return &activities.ExecOutput{ExitCode: 3, Output: "slow\n"}, nil
	}}
	env, model := localCommandsEnv(t, here, exec, 1)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(localConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	execs := exec.calls()
	require.Len(t, execs, 1)
	require.Equal(t, "k1", execs[0].Resume)
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "Exit code: 3")
}
