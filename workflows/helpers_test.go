package workflows

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// a is the typed reference activity mocks are set up with; like the
// workflow's own reference it is never dereferenced.
var a *activities.Activities

const (
	testThreadID = "th"
	testTurnID   = "th/turn-1"
)

// newEnv returns a test environment with both workflows registered and a
// silent logger (expected activity failures would otherwise flood the output).
func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(TurnWorkflow)
	env.RegisterWorkflow(ThreadWorkflow)
	// No skills unless a test mocks DiscoverSkills (a mock wins over this).
	env.RegisterActivityWithOptions(func(context.Context, activities.SkillsInput) (*activities.SkillsOutput, error) {
		return &activities.SkillsOutput{}, nil
	}, activity.RegisterOptions{Name: "DiscoverSkills"})
	return env
}

// testConfig is the thread config of the tests. The test environment checks
// heartbeat timeouts against the wall clock, so they are long enough that a
// mock blocked on the virtual clock can never trip them on a loaded machine.
// Model calls are regular activities; the tests of calls that first wait
// in the workflow task ([ModelCallsAuto]) ask for those, as the tests of
// [CommandsLocal] do.
func testConfig() ThreadConfig {
	return ThreadConfig{Model: "test-model", Harness: "codex", Cwd: "/work", HostQueue: "host",
		ExecHeartbeat: time.Hour, ModelHeartbeat: time.Hour, ModelCalls: ModelCallsActivity}
}

func turnInput(cfg ThreadConfig) TurnInput {
	return TurnInput{ThreadID: testThreadID, TurnID: testTurnID, Number: 1, Config: cfg, Prompt: "do the thing", Code: turnCode}
}

// fakeModel is a scripted model: answer gets the 1-based number of the call
// (over the fake's whole life, so it spans continue-as-new runs) and the
// input. Every input is recorded.
type fakeModel struct {
	mu     sync.Mutex
	inputs []activities.ModelInput
	answer func(n int, in activities.ModelInput) (*activities.ModelOutput, error)
}

func (m *fakeModel) CallModel(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	m.mu.Lock()
	m.inputs = append(m.inputs, in)
	n := len(m.inputs)
	m.mu.Unlock()
	return m.answer(n, in)
}

func (m *fakeModel) calls() []activities.ModelInput {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]activities.ModelInput(nil), m.inputs...)
}

// mockModel installs m as the CallModel mock of env.
func mockModel(env *testsuite.TestWorkflowEnvironment, m *fakeModel) {
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(m.CallModel)
}

// fakeExec records the commands it is asked to run.
type fakeExec struct {
	mu     sync.Mutex
	inputs []activities.ExecInput
	result func(in activities.ExecInput) (*activities.ExecOutput, error)
}

func (e *fakeExec) Exec(_ context.Context, in activities.ExecInput) (*activities.ExecOutput, error) {
	e.mu.Lock()
	e.inputs = append(e.inputs, in)
	e.mu.Unlock()
	if e.result == nil {
		return &activities.ExecOutput{ExitCode: 0, Output: "ok\n", DurationMs: 1200}, nil
	}
	return e.result(in)
}

func (e *fakeExec) calls() []activities.ExecInput {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]activities.ExecInput(nil), e.inputs...)
}

func mockExec(env *testsuite.TestWorkflowEnvironment, e *fakeExec) {
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).Return(e.Exec)
}

// transcriptRef names the transcript a fake model call n leaves.
func transcriptRef(n int) string { return fmt.Sprintf("tr-%d", n) }

func usage(in, out int64) harness.Usage {
	return harness.Usage{InputTokens: in, CachedInputTokens: in / 2, OutputTokens: out}
}

// answer is a model output with a final message and no tool calls.
func answer(n int, msg string) *activities.ModelOutput {
	return &activities.ModelOutput{Transcript: transcriptRef(n), Message: msg, Usage: usage(100, 10)}
}

// withCalls is a model output asking for tool calls.
func withCalls(n int, msg string, calls ...activities.DecodedCall) *activities.ModelOutput {
	return &activities.ModelOutput{Transcript: transcriptRef(n), Message: msg, Usage: usage(100, 10), Calls: calls}
}

func shellCall(callID, script string) activities.DecodedCall {
	argv := []string{"bash", "-lc", script}
	args, _ := json.Marshal(map[string]any{"command": argv})
	return activities.DecodedCall{
		Call: harness.ToolCall{CallID: callID, Name: "shell", Arguments: string(args)},
		Inv:  harness.Invocation{Tool: harness.ToolShell, Command: argv},
	}
}

// queryEvents reads a turn's whole event log.
func queryEvents(t *testing.T, env *testsuite.TestWorkflowEnvironment) EventsPage {
	t.Helper()
	v, err := env.QueryWorkflow(QueryEvents, EventsRequest{})
	require.NoError(t, err)
	var p EventsPage
	require.NoError(t, v.Get(&p))
	return p
}

// requireSeqs checks that the events are numbered 1, 2, 3, ... in order.
func requireSeqs(t *testing.T, events []Event) {
	t.Helper()
	for i, e := range events {
		require.Equal(t, i+1, e.Seq, "event %d (%s) has seq %d", i, e.Type, e.Seq)
		require.Equal(t, testTurnID, e.TurnID)
	}
}

// eventKinds renders the log compactly: "turn.started",
// "item.completed:agent_message", ...
func eventKinds(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
		if e.Item != nil {
			out[i] += ":" + e.Item.Type
		}
	}
	return out
}

// itemEvents returns the events about items of one type.
func itemEvents(events []Event, typ string) []Event {
	var out []Event
	for _, e := range events {
		if e.Item != nil && e.Item.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// toolOutput finds the tool_output entry for callID among the entries.
func toolOutput(t *testing.T, entries []harness.Entry, callID string) harness.Entry {
	t.Helper()
	for _, e := range entries {
		if e.Kind == harness.KindToolOutput && e.CallID == callID {
			return e
		}
	}
	require.Failf(t, "no tool output", "no tool_output for call %s in %v", callID, entries)
	return harness.Entry{}
}

// turnResult is a turn's result: what its workflow returned, or (a failed
// or interrupted turn) what its error carries.
func turnResult(t *testing.T, env *testsuite.TestWorkflowEnvironment) TurnResult {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	if res, ok := TurnResultOf(env.GetWorkflowError()); ok {
		return res
	}
	require.NoError(t, env.GetWorkflowError())
	var res TurnResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
