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

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// runnerConfig is a thread of the named harness with sub-agents on.
func runnerConfig(h string, lim AgentsConfig) ThreadConfig {
	cfg := agentsConfig(lim)
	cfg.Harness = h
	return cfg
}

// runnerCall is a call of a harness's own sub-agent tool, decoded as the
// turn decodes an offered external tool.
func runnerCall(h, callID, name string, args map[string]any) activities.DecodedCall {
	hh, _ := harness.Lookup(h)
	raw, _ := json.Marshal(args)
	call := harness.ToolCall{CallID: callID, Name: name, Arguments: string(raw)}
	return activities.DecodedCall{Call: call, Inv: harness.DecodeCall(hh, hh.(harness.AgentRunner).AgentTools(), call)}
}

// kids records, per sub-agent, its task (the user message of its first
// model call) and the sandbox mode its calls ran with. Calls that run
// side by side start their agents in no fixed order, so tests find an
// agent by its task.
type kids struct {
	mu      sync.Mutex
	task    map[string]string
	sandbox map[string]string
}

func (k *kids) note(id string, in activities.ModelInput) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.task == nil {
		k.task, k.sandbox = map[string]string{}, map[string]string{}
	}
	for _, e := range in.Append {
		if e.Kind == harness.KindUser && k.task[id] == "" {
			k.task[id] = e.Text
		}
	}
	k.sandbox[id] = in.Env.SandboxMode
	return k.task[id]
}

// byTask is the agent whose task was task.
func (k *kids) byTask(task string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, x := range k.task {
		if x == task {
			return id
		}
	}
	return ""
}

// TestTaskRunsAgentToTheEnd: claude-code offers Task alone; each call
// runs a sub-agent thread to the end of its turn and returns its final
// message; Explore runs read-only; a finished Task's agent is closed, so
// it holds no slot of max_threads; an unknown type is a tool error.
func TestTaskRunsAgentToTheEnd(t *testing.T) {
	env := newEnv(t)
	ids := []string{AgentID(testThreadID, 1), AgentID(testThreadID, 2), AgentID(testThreadID, 3)}
	task := func(id, prompt, typ string) activities.DecodedCall {
		return runnerCall("claude-code", id, "Task", map[string]any{"description": "look around", "prompt": prompt, "subagent_type": typ})
	}
	var sb kids
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", task("t1", "look at A", "general-purpose"), task("t2", "look at B", "Explore"), task("t3", "x", "wizard"))
			case 2:
				return withCalls(n, "", task("t4", "look at C", "Plan"))
			}
			return answer(n, "combined")
		},
		child: func(id string, n int, in activities.ModelInput) *activities.ModelOutput {
			return answer(100+n, "report on "+sb.note(id, in))
		},
	}
	mockAgentModel(env, m)
	var view ThreadView
	runRoot(t, env, runnerConfig("claude-code", AgentsConfig{MaxThreads: 2}), time.Hour, func() { view = viewThread(t, env) })

	calls := m.rootCalls()
	require.Len(t, calls, 3)
	var names []string
	for _, x := range calls[0].External {
		names = append(names, x.Name)
	}
	require.Equal(t, []string{"Task"}, names, "claude-code offers its own tool, not Codex's")
	for call, task := range map[string]string{"t1": "look at A", "t2": "look at B"} {
		e := toolOutput(t, calls[1].Append, call)
		require.False(t, e.Error, call)
		require.Equal(t, "report on "+task, e.Text, "the result is the agent's final message")
	}
	e := toolOutput(t, calls[1].Append, "t3")
	require.True(t, e.Error)
	require.Contains(t, e.Text, "Agent type 'wizard' not found. Available agents: general-purpose, Explore, Plan")
	e = toolOutput(t, calls[2].Append, "t4")
	require.False(t, e.Error, "two finished Tasks hold no slot of max_threads = 2: %s", e.Text)
	require.Equal(t, "report on look at C", e.Text)

	require.ElementsMatch(t, []string{"look at A", "look at B", "look at C"}, m.tasks)
	a, b, c := sb.byTask("look at A"), sb.byTask("look at B"), sb.byTask("look at C")
	require.ElementsMatch(t, ids, []string{a, b, c})
	require.Equal(t, ids[2], c, "the later answer's Task starts the third agent")
	require.NotEqual(t, "read-only", sb.sandbox[a], "general-purpose keeps the parent's sandbox")
	require.Equal(t, "read-only", sb.sandbox[b], "Explore reads only")
	require.Equal(t, "read-only", sb.sandbox[c], "Plan reads only")
	require.Len(t, view.Agents, 3)
	roles := map[string]string{}
	for _, ag := range view.Agents {
		require.Equal(t, AgentShutdown, ag.Status, "a finished Task's agent is closed")
		roles[ag.ID] = ag.Role
	}
	require.Equal(t, map[string]string{a: RoleDefault, b: RoleExplorer, c: RoleExplorer}, roles)
	require.Equal(t, "combined", view.Turns[0].FinalMessage)
	for _, call := range calls {
		for _, e := range call.Append {
			require.NotContains(t, e.Text, "<subagent_notification>", "Task returns the result itself: no notice")
		}
	}
}

// TestKimiAgentResumes: kimi-cli's Agent returns kimi-cli's lines and the
// summary; resume reopens the same instance, with its conversation, for
// the next prompt.
func TestKimiAgentResumes(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	agent := func(call string, args map[string]any) activities.DecodedCall {
		args["description"] = "investigate"
		return runnerCall("kimi-cli", call, "Agent", args)
	}
	var secondTranscript string
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agent("a1", map[string]any{"prompt": "find the bug"}), agent("bad", map[string]any{"prompt": "x", "subagent_type": "wizard"}))
			case 2:
				return withCalls(n, "", agent("a2", map[string]any{"prompt": "now fix it", "resume": id}))
			}
			return answer(n, "done")
		},
		child: func(_ string, n int, in activities.ModelInput) *activities.ModelOutput {
			if n == 2 {
				secondTranscript = in.Transcript
			}
			return answer(100+n, "summary "+itoa(n))
		},
	}
	mockAgentModel(env, m)
	var view ThreadView
	runRoot(t, env, runnerConfig("kimi-cli", AgentsConfig{}), time.Hour, func() { view = viewThread(t, env) })

	calls := m.rootCalls()
	require.Len(t, calls, 3)
	require.Equal(t, "Agent", calls[0].External[0].Name)
	require.Len(t, calls[0].External, 1)
	e := toolOutput(t, calls[1].Append, "a1")
	require.False(t, e.Error, e.Text)
	require.Equal(t, "agent_id: "+id+"\nresumed: false\nactual_subagent_type: coder\nstatus: completed\n\n[summary]\nsummary 1", e.Text)
	e = toolOutput(t, calls[1].Append, "bad")
	require.True(t, e.Error)
	require.Contains(t, e.Text, "Unknown subagent type: wizard. The built-in types are coder, explore, plan.")
	e = toolOutput(t, calls[2].Append, "a2")
	require.False(t, e.Error, e.Text)
	require.Equal(t, "agent_id: "+id+"\nresumed: true\nactual_subagent_type: coder\nstatus: completed\n\n[summary]\nsummary 2", e.Text)
	require.Equal(t, transcriptRef(101), secondTranscript, "the resumed instance goes on from its own conversation")
	require.Equal(t, []string{"find the bug", "now fix it"}, m.tasks)
	require.Len(t, view.Agents, 1)
	require.Equal(t, RoleWorker, view.Agents[0].Role, "coder runs as a worker")
	require.Equal(t, AgentShutdown, view.Agents[0].Status)
}

// TestAgentRunTimeoutAndInterrupt: kimi-cli's timeout bounds the agent's
// turn (virtual time), the run is a tool error and the agent's command
// stops; an interrupt of the asking turn closes a running Task's agent.
func TestAgentRunTimeoutAndInterrupt(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		env := newEnv(t)
		var asked, answered time.Time
		m := &agentModel{
			script: func(n int, in activities.ModelInput) *activities.ModelOutput {
				if n == 1 {
					asked = env.Now()
					return withCalls(n, "", runnerCall("kimi-cli", "a", "Agent", map[string]any{"description": "d", "prompt": "build", "timeout": 60}))
				}
				answered = env.Now()
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
		var view ThreadView
		runRoot(t, env, runnerConfig("kimi-cli", AgentsConfig{}), time.Hour, func() { view = viewThread(t, env) })
		calls := m.rootCalls()
		require.Len(t, calls, 2)
		e := toolOutput(t, calls[1].Append, "a")
		require.True(t, e.Error)
		require.Equal(t, "Agent timed out after 60s.", e.Text)
		waited := answered.Sub(asked)
		require.GreaterOrEqual(t, waited, time.Minute)
		require.Less(t, waited, 2*time.Minute, "timeout 60 s bounds the run")
		require.Contains(t, canceled, "Exec")
		require.Equal(t, AgentShutdown, view.Agents[0].Status)
	})
	t.Run("interrupt", func(t *testing.T) {
		env := newEnv(t)
		m := &agentModel{
			script: func(n int, in activities.ModelInput) *activities.ModelOutput {
				return withCalls(n, "", runnerCall("claude-code", "t", "Task", map[string]any{"description": "d", "prompt": "build", "subagent_type": "general-purpose"}))
			},
			child: func(_ string, n int, _ activities.ModelInput) *activities.ModelOutput {
				return withCalls(200+n, "", shellCall("long", "make world"))
			},
		}
		mockAgentModel(env, m)
		env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Hour).Return(&activities.ExecOutput{}, nil)
		var canceled []string
		env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalInterrupt, nil) }, 5*time.Minute)
		var view ThreadView
		runRoot(t, env, runnerConfig("claude-code", AgentsConfig{}), time.Hour, func() { view = viewThread(t, env) })
		require.Len(t, m.rootCalls(), 1)
		require.Equal(t, StatusInterrupted, view.Turns[0].Status)
		require.Equal(t, AgentShutdown, view.Agents[0].Status, "the interrupted Task's agent was closed")
		require.Contains(t, canceled, "Exec", "and its command stopped")
	})
}

// Each harness offers its own sub-agent tools; harnesses without one get
// Codex's five.
func TestAgentToolsByHarness(t *testing.T) {
	for _, c := range []struct {
		harness string
		want    []string
	}{
		{"claude-code", []string{"Task"}},
		{"kimi-cli", []string{"Agent"}},
		{"codex", []string{"spawn_agent", "send_input", "wait_agent", "close_agent", "resume_agent"}},
		{"opencode", []string{"spawn_agent", "send_input", "wait_agent", "close_agent", "resume_agent"}},
	} {
		tr := &turn{in: TurnInput{Config: runnerConfig(c.harness, AgentsConfig{}), Code: turnCode}}
		var names []string
		for _, x := range tr.agentTools() {
			names = append(names, x.Name)
		}
		require.Equal(t, c.want, names, c.harness)
	}
}

// TestSpawnForkContext: fork_context starts the agent from a copy of the
// asking turn's conversation (ForkTranscript of the turn's transcript
// when it asked); overrides of a fork are refused.
func TestSpawnForkContext(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	var forkedFrom []string
	env.OnActivity(a.ForkTranscript, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ForkInput) (*activities.ForkOutput, error) {
		forkedFrom = append(forkedFrom, in.Transcript)
		return &activities.ForkOutput{Transcript: "fork-of-" + in.Transcript}, nil
	})
	var childTranscript, childTask string
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "",
					agentCall("f", "spawn_agent", map[string]any{"message": "go on from here", "fork_context": true}),
					agentCall("fm", "spawn_agent", map[string]any{"message": "x", "fork_context": true, "model": "other"}),
					agentCall("fr", "spawn_agent", map[string]any{"message": "x", "fork_context": true, "agent_type": "explorer"}))
			case 2:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}}))
			}
			return answer(n, "done")
		},
		child: func(_ string, n int, in activities.ModelInput) *activities.ModelOutput {
			childTranscript = in.Transcript
			childTask = in.Append[len(in.Append)-1].Text
			return answer(100+n, "forked report")
		},
	}
	mockAgentModel(env, m)
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, nil)
	calls := m.rootCalls()
	require.Len(t, calls, 3)
	out, e := outputOf(t, calls[1], "f")
	require.False(t, e.Error, e.Text)
	require.Equal(t, id, out["agent_id"])
	require.Equal(t, []string{transcriptRef(1)}, forkedFrom, "the fork copies the conversation as it stood at the call")
	require.Equal(t, "fork-of-"+transcriptRef(1), childTranscript, "the agent's first turn starts from the copy")
	require.Equal(t, "go on from here", childTask)
	_, e = outputOf(t, calls[1], "fm")
	require.True(t, e.Error)
	require.Contains(t, e.Text, "fork_context copies you, model included")
	_, e = outputOf(t, calls[1], "fr")
	require.True(t, e.Error)
	require.Contains(t, e.Text, "fork_context copies you, role included")
	out, _ = outputOf(t, calls[2], "w")
	require.Equal(t, map[string]any{id: map[string]any{"completed": "forked report"}}, out["status"])
}

// TestMaxThreadsCountsTheTree: with max_depth 2 the limit counts every
// open sub-agent under the root, as Codex does: a sub-agent's second
// spawn and then the root's own are refused while the tree has two open;
// closing the first agent (and so its own) frees both slots.
func TestMaxThreadsCountsTheTree(t *testing.T) {
	env := newEnv(t)
	first := AgentID(testThreadID, 1)
	grand := AgentID(first, 1)
	limit := "agent thread limit reached (agents.max_threads = 2; 2 open)"
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			switch n {
			case 1:
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "delegate twice"}))
			case 2:
				return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{first}, "timeout_ms": 600000}))
			case 3:
				return withCalls(n, "", agentCall("s2", "spawn_agent", map[string]any{"message": "one more"}))
			case 4:
				return withCalls(n, "", agentCall("c", "close_agent", map[string]any{"target": first}))
			case 5:
				return withCalls(n, "", agentCall("s3", "spawn_agent", map[string]any{"message": "now there is room"}))
			}
			return answer(n, "done")
		},
		child: func(tid string, n int, in activities.ModelInput) *activities.ModelOutput {
			if tid != first {
				return answer(300+n, "grandchild done")
			}
			if n == 1 {
				return withCalls(200+n, "",
					agentCall("g1", "spawn_agent", map[string]any{"message": "part one"}),
					agentCall("g2", "spawn_agent", map[string]any{"message": "part two"}))
			}
			return answer(200+n, findOutput(in.Append, "g2").Text)
		},
	}
	mockAgentModel(env, m)
	var view ThreadView
	runRoot(t, env, agentsConfig(AgentsConfig{MaxDepth: 2, MaxThreads: 2}), time.Hour, func() { view = viewThread(t, env) })
	calls := m.rootCalls()
	require.Len(t, calls, 6)
	out, _ := outputOf(t, calls[2], "w")
	st := out["status"].(map[string]any)[first].(map[string]any)
	require.Contains(t, st["completed"], limit, "the sub-agent's second spawn counted the root's agent and its own")
	_, e := outputOf(t, calls[3], "s2")
	require.True(t, e.Error)
	require.Contains(t, e.Text, limit, "the root counts its sub-agent's agent too")
	out, e = outputOf(t, calls[5], "s3")
	require.False(t, e.Error, "closing the first agent freed its slot and its agent's: %s", e.Text)
	require.Equal(t, AgentID(testThreadID, 3), out["agent_id"])
	require.Empty(t, view.TreeAgents, "no slot is held for the closed grandchild %s", grand)
}

// TestTasksOfOneAnswerRunAtOnce: three Task calls in one answer run their
// agents side by side: the answer's results come after one agent's ten
// minutes of work (virtual time), not three.
func TestTasksOfOneAnswerRunAtOnce(t *testing.T) {
	env := newEnv(t)
	var asked, answered time.Time
	var k kids
	task := func(id string) activities.DecodedCall {
		return runnerCall("claude-code", id, "Task", map[string]any{"description": "look", "prompt": "investigate " + id, "subagent_type": "general-purpose"})
	}
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			if n == 1 {
				asked = env.Now()
				return withCalls(n, "", task("t1"), task("t2"), task("t3"))
			}
			answered = env.Now()
			return answer(n, "combined")
		},
		child: func(id string, n int, in activities.ModelInput) *activities.ModelOutput {
			task := k.note(id, in)
			if n == 1 {
				return withCalls(200+n, "", shellCall("work", "make test"))
			}
			return answer(200+n, "found it for "+task)
		},
	}
	mockAgentModel(env, m)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Minute).Return(&activities.ExecOutput{}, nil)
	runRoot(t, env, runnerConfig("claude-code", AgentsConfig{}), time.Hour, nil)
	calls := m.rootCalls()
	require.Len(t, calls, 2)
	for _, call := range []string{"t1", "t2", "t3"} {
		e := toolOutput(t, calls[1].Append, call)
		require.False(t, e.Error, e.Text)
		require.Equal(t, "found it for investigate "+call, e.Text, "each call reads its own agent's answer")
	}
	took := answered.Sub(asked)
	require.GreaterOrEqual(t, took, 10*time.Minute)
	require.Less(t, took, 20*time.Minute, "the three agents ran at once")
}

// kimi-cli's timeout is kept within its bounds, whatever the model sends;
// other tools' arguments never set one.
func TestRunTimeoutBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		tool    string
		timeout *float64
		want    time.Duration
	}{
		{harness.AgentRun, nil, 0}, {harness.AgentRun, f(-5), 0}, {harness.AgentRun, f(10), 30 * time.Second},
		{harness.AgentRun, f(60), time.Minute}, {harness.AgentRun, f(1e300), time.Hour}, {"spawn_agent", f(60), 0},
	} {
		r := AgentRequest{Tool: c.tool, Args: harness.AgentArgs{Timeout: c.timeout}}
		require.Equal(t, c.want, runTimeout(r), "%s %v", c.tool, c.timeout)
	}
}
