package workflows

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// TestSubAgentCloseClosesTree: with max_depth 2 a sub-agent spawns its
// own; closing the first closes the second, whose command stops.
func TestSubAgentCloseClosesTree(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	grand := AgentID(id, 1)
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "delegate"}))
			case 2:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 60000}))
			case 3:
				return withCalls(n, "", agentCall("c", "close_agent", map[string]any{"target": id}))
			}
			return answer(n, "closed")
		},
		child: func(tid string, n int, in activities.ModelInput) *activities.ModelOutput {
			if tid == grand {
				return withCalls(300+n, "", shellCall("long", "sleep 99999"))
			}
			switch n {
			case 1:
				return withCalls(200+n, "", agentCall("g", "spawn_agent", map[string]any{"message": "do the work"}))
			case 2:
				// Until its own agent is surely running its command.
				return withCalls(200+n, "", agentCall("gw", "wait_agent", map[string]any{"targets": []string{grand}, "timeout_ms": 10000}))
			}
			return answer(200+n, "spawned "+grand)
		},
	}
	mockAgentModel(env, m)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Hour).Return(&activities.ExecOutput{}, nil)
	var canceled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })
	var view ThreadView
	runRoot(t, env, agentsConfig(AgentsConfig{MaxDepth: 2}), time.Hour, func() { view = viewThread(t, env) })
	calls := m.rootCalls()
	require.Len(t, calls, 4)
	out, _ := outputOf(t, calls[3], "c")
	require.Equal(t, map[string]any{"previous_status": map[string]any{"completed": "spawned " + grand}}, out)
	require.Equal(t, []string{"Exec"}, canceled, "the grandchild's command stopped with it")
	require.Equal(t, AgentShutdown, view.Agents[0].Status)
}

// TestSubAgentsSurviveContinueAsNew: a parent that continues as new with
// an open sub-agent carries it; the new run reaches it, and its report
// reaches the new run's wait_agent.
func TestSubAgentsSurviveContinueAsNew(t *testing.T) {
	id := AgentID(testThreadID, 1)
	env := newEnv(t)
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "work"}))
			case 3:
				return withCalls(n, "",
					agentCall("i", "send_input", map[string]any{"target": id, "message": "more"}),
					agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 600000}))
			}
			return answer(n, "ok")
		},
	}
	mockAgentModel(env, m)
	// The sub-agent runs elsewhere, on and on: its workflow here ends at
	// once (the test environment waits for a child's end before its
	// parent may continue as new, which a real server does not).
	env.OnWorkflow(ThreadWorkflow, mock.Anything, mock.Anything).Return(func(ctx workflow.Context, in ThreadInput) error {
		if in.Parent == nil {
			return ThreadWorkflow(ctx, in)
		}
		return nil
	})
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "spawn"}) }, 0)
	env.RegisterDelayedCallback(func() {
		env.SetCurrentHistoryLength(threadHistoryLimit + 1)
		env.SignalWorkflow(SignalInterrupt, nil)
	}, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: agentsConfig(AgentsConfig{})})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "thread ended with %v", env.GetWorkflowError())
	var next ThreadInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, next.State.Agents, 1)
	require.Equal(t, AgentRunning, next.State.Agents[0].Status)
	require.Equal(t, 1, next.State.NextAgent)

	// The new run: the sub-agent runs on (elsewhere: its signals are
	// taken here), gets the new input and reports its second turn.
	env = newEnv(t)
	var sent []string
	env.OnSignalExternalWorkflow(mock.Anything, id, "", mock.Anything, mock.Anything).Return(
		func(_, _, _, name string, arg any) error {
			sent = append(sent, name)
			return nil
		})
	mockAgentModel(env, m)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "collect"}) }, 0)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(SignalAgentStatus, AgentReport{AgentID: id, Number: 2, Status: StatusCompleted, Message: "found it", NextTurn: 3})
	}, 5*time.Minute)
	env.RegisterDelayedCallback(func() { env.CancelWorkflow() }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, next)
	requireCanceled(t, env)
	calls := m.rootCalls()
	require.Len(t, calls, 4)
	require.Equal(t, []string{SignalAgentInput}, sent)
	out, _ := outputOf(t, calls[3], "w")
	require.Equal(t, map[string]any{"status": map[string]any{id: map[string]any{"completed": "found it"}}, "timed_out": false}, out,
		"the wait ended on the report of the turn sent, not on the first turn's status")
}

// Sub-agent tools are offered only when the config turns them on.
func TestSubAgentToolsOffered(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  ThreadConfig
		want bool
	}{{"off by default", testConfig(), false}, {"on", agentsConfig(AgentsConfig{}), true}} {
		tr := &turn{in: TurnInput{Config: c.cfg, Code: turnCode}}
		require.Equal(t, c.want, len(tr.agentTools()) == 5, c.name)
	}
	require.True(t, strings.HasPrefix(AgentID("a", 1), ""), "ids are UUIDs")
	require.Len(t, AgentID("a", 1), 36)
	require.NotEqual(t, AgentID("a", 1), AgentID("a", 2))
}

// The hand-built JSON of the tools' outputs reads back as encoding/json
// reads it.
func TestAgentJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "line\nbreak\ttab\r", "\x00\x1f ctl", "ünïcode ✓", "\u2028sep"} {
		var back string
		require.NoError(t, json.Unmarshal([]byte(jsonString(s)), &back), "%q", s)
		require.Equal(t, s, back)
	}
}

// TestSubAgentResume: a closed agent reopens with its conversation and
// takes new input; send_input to it while closed is refused.
func TestSubAgentResume(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "first task"}))
			case 2:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 60000}))
			case 3:
				return withCalls(n, "", agentCall("c", "close_agent", map[string]any{"target": id}))
			case 4:
				return withCalls(n, "", agentCall("closed", "send_input", map[string]any{"target": id, "message": "x"}))
			case 5:
				return withCalls(n, "", agentCall("r", "resume_agent", map[string]any{"id": id}))
			case 6:
				return withCalls(n, "",
					agentCall("i", "send_input", map[string]any{"target": id, "message": "second task"}),
					agentCall("w2", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 60000}))
			}
			return answer(n, "done")
		},
		child: func(_ string, n int, in activities.ModelInput) *activities.ModelOutput {
			return answer(200+n, "answer "+itoa(n)+" on "+in.Transcript)
		},
	}
	mockAgentModel(env, m)
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, nil)
	calls := m.rootCalls()
	require.Len(t, calls, 7)
	_, e := outputOf(t, calls[4], "closed")
	require.True(t, e.Error)
	require.Contains(t, e.Text, "is closed; reopen it with resume_agent")
	out, _ := outputOf(t, calls[5], "r")
	require.Equal(t, map[string]any{"status": map[string]any{"completed": "answer 1 on "}}, out)
	out, _ = outputOf(t, calls[6], "w2")
	require.Equal(t, map[string]any{"status": map[string]any{id: map[string]any{"completed": "answer 2 on " + transcriptRef(201)}}, "timed_out": false}, out,
		"the reopened agent goes on from its conversation")
}
