package workflows

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/codex"
)

func agentsConfig(lim AgentsConfig) ThreadConfig {
	cfg := testConfig()
	lim.Enabled = true
	cfg.Agents = &lim
	return cfg
}

// agentCall is a call of a sub-agent tool, decoded as the codex harness
// decodes an offered external tool.
func agentCall(callID, tool string, args map[string]any) activities.DecodedCall {
	raw, _ := json.Marshal(args)
	call := harness.ToolCall{CallID: callID, Name: tool, Arguments: string(raw)}
	return activities.DecodedCall{Call: call, Inv: harness.DecodeCall(nil, codex.AgentTools(), call)}
}

// agentModel answers the root thread with script (by the number of the
// root's call) and every sub-agent with child (by its thread id and the
// number of its call); it records the root's inputs.
type agentModel struct {
	mu     sync.Mutex
	root   []activities.ModelInput
	kids   map[string]int
	tasks  []string
	script func(n int, in activities.ModelInput) *activities.ModelOutput
	child  func(id string, n int, in activities.ModelInput) *activities.ModelOutput
}

func (m *agentModel) answer(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if in.ThreadID == testThreadID {
		m.root = append(m.root, in)
		return m.script(len(m.root), in), nil
	}
	if m.kids == nil {
		m.kids = map[string]int{}
	}
	m.kids[in.ThreadID]++
	for _, e := range in.Append {
		if e.Kind == harness.KindUser {
			m.tasks = append(m.tasks, e.Text)
		}
	}
	if m.child == nil {
		return answer(100+m.kids[in.ThreadID], "report of "+in.ThreadID), nil
	}
	return m.child(in.ThreadID, m.kids[in.ThreadID], in), nil
}

func (m *agentModel) rootCalls() []activities.ModelInput {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]activities.ModelInput(nil), m.root...)
}

func mockAgentModel(env *testsuite.TestWorkflowEnvironment, m *agentModel) {
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(m.answer)
	// The test environment delivers signals to child workflows only; a
	// turn's signal to its thread, and a sub-agent's to its parent, go
	// through this mock to the workflow they name.
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", mock.Anything, mock.Anything).Return(
		func(_, id, _, name string, arg any) error {
			if id == testThreadID {
				env.SignalWorkflow(name, arg)
				return nil
			}
			return env.SignalWorkflowByID(id, name, arg)
		})
}

// outputOf decodes the JSON output the model read for callID.
func outputOf(t *testing.T, in activities.ModelInput, callID string) (map[string]any, harness.Entry) {
	t.Helper()
	e := toolOutput(t, in.Append, callID)
	var v map[string]any
	if !e.Error {
		require.NoError(t, json.Unmarshal([]byte(e.Text), &v), "output %q", e.Text)
	}
	return v, e
}

// findOutput is the tool output for callID among entries (zero if none).
func findOutput(entries []harness.Entry, callID string) harness.Entry {
	for _, e := range entries {
		if e.Kind == harness.KindToolOutput && e.CallID == callID {
			return e
		}
	}
	return harness.Entry{}
}

func runRoot(t *testing.T, env *testsuite.TestWorkflowEnvironment, cfg ThreadConfig, until time.Duration, check func()) {
	t.Helper()
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "three investigations in parallel"}) }, 0)
	env.RegisterDelayedCallback(func() {
		if check != nil {
			check()
		}
		env.CancelWorkflow()
	}, until)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)
}

// TestSubAgentsSpawnAndWait: three spawned agents run as child threads;
// one wait_agent returns all three answers, and the parent's answer
// follows.
func TestSubAgentsSpawnAndWait(t *testing.T) {
	env := newEnv(t)
	ids := []string{AgentID(testThreadID, 1), AgentID(testThreadID, 2), AgentID(testThreadID, 3)}
	results := map[string]any{}
	waits := 0
	m := &agentModel{script: func(n int, in activities.ModelInput) *activities.ModelOutput {
		if n == 1 {
			return withCalls(n, "",
				agentCall("s1", "spawn_agent", map[string]any{"message": "look at A"}),
				agentCall("s2", "spawn_agent", map[string]any{"message": "look at B", "agent_type": "explorer"}),
				agentCall("s3", "spawn_agent", map[string]any{"items": []any{map[string]any{"type": "text", "text": "look at C"}}}))
		}
		if waits > 0 {
			var out struct {
				Status map[string]any `json:"status"`
			}
			_ = json.Unmarshal([]byte(findOutput(in.Append, "w"+itoa(waits)).Text), &out)
			for id, st := range out.Status {
				results[id] = st
			}
		}
		var left []string
		for _, id := range ids {
			if results[id] == nil {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return answer(n, "combined")
		}
		waits++
		return withCalls(n, "", agentCall("w"+itoa(waits), "wait_agent", map[string]any{"targets": left, "timeout_ms": 600000}))
	}}
	mockAgentModel(env, m)
	var view ThreadView
	var child ThreadView
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, func() {
		view = viewThread(t, env)
		v, err := env.QueryWorkflowByID(ids[1], QueryThread)
		require.NoError(t, err)
		require.NoError(t, v.Get(&child))
	})

	calls := m.rootCalls()
	require.Len(t, calls, 2+waits)
	require.LessOrEqual(t, waits, 3)
	var names []string
	for _, x := range calls[0].External {
		names = append(names, x.Name)
	}
	require.Equal(t, []string{"spawn_agent", "send_input", "wait_agent", "close_agent", "resume_agent"}, names)
	for i, id := range ids {
		out, _ := outputOf(t, calls[1], "s"+itoa(i+1))
		require.Equal(t, id, out["agent_id"])
		require.NotEmpty(t, out["nickname"])
	}
	out, _ := outputOf(t, calls[2], "w1")
	require.Equal(t, false, out["timed_out"])
	for _, id := range ids {
		require.Equal(t, map[string]any{"completed": "report of " + id}, results[id])
	}
	require.ElementsMatch(t, []string{"look at A", "look at B", "look at C"}, m.tasks)

	require.Len(t, view.Turns, 1)
	require.Equal(t, "combined", view.Turns[0].FinalMessage)
	require.Len(t, view.Agents, 3)
	for _, ag := range view.Agents {
		require.Equal(t, AgentCompleted, ag.Status)
		require.Nil(t, ag.Config, "the view leaves the configs out")
	}
	require.Equal(t, RoleExplorer, view.Agents[1].Role)
	require.NotNil(t, child.Parent)
	require.Equal(t, AgentParent{ThreadID: testThreadID, RootID: testThreadID, Depth: 1, Role: RoleExplorer, Nickname: view.Agents[1].Nickname}, *child.Parent)
	require.Equal(t, "read-only", child.Config.SandboxMode, "an explorer reads only")
	require.Equal(t, DefaultAgentJobRuntime, child.Config.TurnTimeout, "the runtime limit bounds its turns")
	require.Len(t, child.Turns, 1)
}

// TestSubAgentWaitTimesOutThenCloses: a wait on an agent that runs a long
// command ends at its timeout (virtual time) with timed_out; close_agent
// stops the command and reports the status from before.
func TestSubAgentWaitTimesOutThenCloses(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	var waitedFrom, waitedTo time.Time
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "build it"}))
			case 2:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 1000}))
			case 3:
				return withCalls(n, "", agentCall("c", "close_agent", map[string]any{"target": id}))
			case 4:
				return withCalls(n, "", agentCall("w2", "wait_agent", map[string]any{"targets": []string{id}}))
			}
			return answer(n, "gave up")
		},
		child: func(_ string, n int, _ activities.ModelInput) *activities.ModelOutput {
			return withCalls(200+n, "", shellCall("long", "make world"))
		},
	}
	mockAgentModel(env, m)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Hour).Return(&activities.ExecOutput{}, nil)
	var canceled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })
	env.SetOnTimerScheduledListener(func(timerID string, d time.Duration) {
		if d == minWaitTimeout {
			waitedFrom = env.Now()
		}
	})
	env.SetOnTimerFiredListener(func(timerID string) {
		if !waitedFrom.IsZero() && waitedTo.IsZero() {
			waitedTo = env.Now()
		}
	})
	var view ThreadView
	runRoot(t, env, agentsConfig(AgentsConfig{}), 2*time.Hour, func() { view = viewThread(t, env) })

	calls := m.rootCalls()
	require.Len(t, calls, 5)
	out, _ := outputOf(t, calls[2], "w")
	require.Equal(t, map[string]any{"status": map[string]any{}, "timed_out": true}, out)
	require.Equal(t, minWaitTimeout, waitedTo.Sub(waitedFrom), "the timeout is clamped to at least 10 s")
	out, _ = outputOf(t, calls[3], "c")
	require.Equal(t, map[string]any{"previous_status": "running"}, out)
	out, _ = outputOf(t, calls[4], "w2")
	require.Equal(t, map[string]any{"status": map[string]any{id: "shutdown"}, "timed_out": false}, out,
		"waiting on a closed agent returns its status at once")
	require.Contains(t, canceled, "Exec", "closing the agent stopped its command")
	require.Equal(t, AgentShutdown, view.Agents[0].Status)
}

// TestSubAgentSendInputInterrupts: send_input with interrupt stops the
// agent's running turn and makes the message its task; the wait returns
// the answer to that message, not the interrupted turn.
func TestSubAgentSendInputInterrupts(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "count to a billion"}))
			case 2:
				return withCalls(n, "", agentCall("i", "send_input", map[string]any{"target": id, "message": "stop; just say hi", "interrupt": true}))
			case 3:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 60000}))
			}
			return answer(n, "done")
		},
		child: func(_ string, n int, in activities.ModelInput) *activities.ModelOutput {
			for _, e := range in.Append {
				if e.Kind == harness.KindUser && e.Text == "stop; just say hi" {
					return answer(200+n, "hi")
				}
			}
			return withCalls(200+n, "", shellCall("long", "seq 1000000000"))
		},
	}
	mockAgentModel(env, m)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Hour).Return(&activities.ExecOutput{}, nil)
	var child ThreadView
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, func() {
		v, err := env.QueryWorkflowByID(id, QueryThread)
		require.NoError(t, err)
		require.NoError(t, v.Get(&child))
	})
	calls := m.rootCalls()
	require.Len(t, calls, 4)
	out, _ := outputOf(t, calls[2], "i")
	require.Equal(t, TurnWorkflowID(id, 2), out["submission_id"])
	out, _ = outputOf(t, calls[3], "w")
	require.Equal(t, map[string]any{"status": map[string]any{id: map[string]any{"completed": "hi"}}, "timed_out": false}, out)
	require.Len(t, child.Turns, 2)
	require.Equal(t, StatusInterrupted, child.Turns[0].Status)
	require.Equal(t, StatusCompleted, child.Turns[1].Status)
}

// TestSubAgentLimitsAndBadInput: over agents.max_threads and
// agents.max_depth, and with bad arguments, a call is a tool result that
// says why; the turn goes on.
func TestSubAgentLimitsAndBadInput(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	cfg := agentsConfig(AgentsConfig{MaxThreads: 1, Models: []string{"small-model"}})
	cfg.SandboxMode = "read-only"
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			if n == 1 {
				return withCalls(n, "",
					agentCall("role", "spawn_agent", map[string]any{"message": "x", "agent_type": "wizard"}),
					agentCall("model", "spawn_agent", map[string]any{"message": "x", "model": "gpt-99"}),
					agentCall("widen", "spawn_agent", map[string]any{"message": "edit files", "agent_type": "worker"}),
					agentCall("empty", "spawn_agent", map[string]any{}),
					agentCall("ok", "spawn_agent", map[string]any{"message": "try to spawn", "model": "small-model"}),
					agentCall("over", "spawn_agent", map[string]any{"message": "one too many"}),
					agentCall("unknown", "send_input", map[string]any{"target": "nope", "message": "hi"}),
					agentCall("wunknown", "wait_agent", map[string]any{"targets": []string{id, "nope"}}),
				)
			}
			if n == 2 {
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}}))
			}
			return answer(n, "done")
		},
		child: func(_ string, n int, in activities.ModelInput) *activities.ModelOutput {
			if n == 1 {
				return withCalls(200+n, "", agentCall("deeper", "spawn_agent", map[string]any{"message": "grandchild"}))
			}
			return answer(200+n, findOutput(in.Append, "deeper").Text)
		},
	}
	mockAgentModel(env, m)
	var view ThreadView
	runRoot(t, env, cfg, time.Hour, func() { view = viewThread(t, env) })
	calls := m.rootCalls()
	require.Len(t, calls, 3)
	want := map[string]string{
		"role":     `unknown agent_type "wizard": the roles are default, worker and explorer`,
		"model":    `unknown model "gpt-99" for a sub-agent: the models available are test-model, small-model`,
		"widen":    "role worker writes files, and this thread's sandbox is read-only",
		"empty":    "the task is empty",
		"over":     "agent thread limit reached (agents.max_threads = 1; 1 open)",
		"unknown":  `no agent with id "nope"; this thread's agents are ` + id,
		"wunknown": `no agent with id "nope"`,
	}
	for call, text := range want {
		_, e := outputOf(t, calls[1], call)
		require.True(t, e.Error, call)
		require.Contains(t, e.Text, text, call)
	}
	out, _ := outputOf(t, calls[2], "w")
	st := out["status"].(map[string]any)[id].(map[string]any)
	require.Contains(t, st["completed"], "Agent depth limit reached (agents.max_depth = 1)", "the sub-agent was told it may not spawn")
	require.Len(t, view.Agents, 1)
	require.Equal(t, "small-model", view.Agents[0].Model)
	require.Equal(t, StatusCompleted, view.Turns[0].Status)
}
