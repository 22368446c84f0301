package workflows

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/codex"
)

// noticeAt is the index in entries of the user message that notifies of
// agent id, or -1.
func noticeAt(entries []harness.Entry, id, message string) int {
	want := noticeText(AgentState{ThreadID: id, Status: AgentCompleted, Message: message})
	for i, e := range entries {
		if e.Kind == harness.KindUser && e.Text == want {
			return i
		}
	}
	return -1
}

// TestSubAgentNoticeReachesRunningParent: when the agent's turn ends
// while the parent waits, the parent's next model request carries the
// notice after the wait's output (as Codex 0.140 sends it), once.
func TestSubAgentNoticeReachesRunningParent(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	m := &agentModel{script: func(n int, in activities.ModelInput) *activities.ModelOutput {
		switch n {
		case 1:
			return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "look at A"}))
		case 2:
			return withCalls(n, "", agentCall("w", "wait_agent", map[string]any{"targets": []string{id}, "timeout_ms": 600000}))
		}
		return answer(n, "combined")
	}}
	mockAgentModel(env, m)
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, nil)

	calls := m.rootCalls()
	require.Len(t, calls, 3)
	out, _ := outputOf(t, calls[2], "w")
	require.Equal(t, false, out["timed_out"])
	at := noticeAt(calls[2].Append, id, "report of "+id)
	require.GreaterOrEqual(t, at, 0, "the request after the wait carries the notice: %+v", calls[2].Append)
	require.Equal(t, harness.KindToolOutput, calls[2].Append[at-1].Kind, "the notice follows the wait's output")
	require.Equal(t, -1, noticeAt(calls[1].Append, id, "report of "+id), "no notice before the agent's turn ended")
}

// TestSubAgentNoticeWaitsForNextTurn: an agent whose turn ends while its
// parent is idle is told to the parent's next turn, before its prompt.
// (TestTaskRunsAgentToTheEnd checks that a Task's agent is told to
// nobody: its tool returns the result.)
func TestSubAgentNoticeWaitsForNextTurn(t *testing.T) {
	env := newEnv(t)
	id := AgentID(testThreadID, 1)
	m := &agentModel{
		script: func(n int, in activities.ModelInput) *activities.ModelOutput {
			if n == 1 {
				return withCalls(n, "", agentCall("s", "spawn_agent", map[string]any{"message": "build it"}))
			}
			return answer(n, "ok")
		},
		child: func(_ string, n int, _ activities.ModelInput) *activities.ModelOutput {
			if n == 1 {
				return withCalls(200+n, "", shellCall("make", "make world"))
			}
			return answer(200+n, "built")
		},
	}
	mockAgentModel(env, m)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Minute).Return(&activities.ExecOutput{}, nil)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "what did it build?"}) }, 30*time.Minute)
	runRoot(t, env, agentsConfig(AgentsConfig{}), time.Hour, nil)

	calls := m.rootCalls()
	require.Len(t, calls, 3)
	require.Equal(t, -1, noticeAt(calls[1].Append, id, "built"), "the first turn ended before the agent's")
	at := noticeAt(calls[2].Append, id, "built")
	require.GreaterOrEqual(t, at, 0, "the next turn carries the notice: %+v", calls[2].Append)
	last := calls[2].Append[len(calls[2].Append)-1]
	require.Equal(t, "what did it build?", last.Text)
	require.Less(t, at, len(calls[2].Append)-1, "the notice comes before the prompt")
}

// TestSubAgentNoticeMatchesCodex0140: the notice, rendered for the
// Responses API after a wait_agent output, is the message Codex 0.140
// sent (harness/codex/testdata, recorded by dev/codex140collab).
func TestSubAgentNoticeMatchesCodex0140(t *testing.T) {
	raw, err := os.ReadFile("../harness/codex/testdata/subagent_notification-0.140.json")
	require.NoError(t, err)
	var golden struct {
		Tail []map[string]any `json:"input_tail"`
	}
	require.NoError(t, json.Unmarshal(raw, &golden))
	require.Len(t, golden.Tail, 3)

	s := AgentState{ThreadID: "AGENT_ID", Status: AgentCompleted, Message: "beta report"}
	wait := `{"status":{"AGENT_ID":` + statusJSON(s) + `},"timed_out":false}`
	req := harness.Request{Model: "gpt-5.1-codex", Harness: codex.Harness{}, Env: harness.Env{Cwd: "/work"},
		Conversation: []harness.Entry{
			{Kind: harness.KindUser, Text: "spawn one sub-agent and report"},
			{Kind: harness.KindToolCall, CallID: "call_t0_s3_0", Name: "wait_agent", Arguments: `{"targets":["AGENT_ID"],"timeout_ms":60000}`},
			{Kind: harness.KindToolOutput, CallID: "call_t0_s3_0", Text: wait},
			{Kind: harness.KindUser, Text: noticeText(s)},
		}}
	b, err := json.Marshal(harness.RenderResponses(req))
	require.NoError(t, err)
	var body struct {
		Input []map[string]any `json:"input"`
	}
	require.NoError(t, json.Unmarshal(b, &body))
	require.GreaterOrEqual(t, len(body.Input), 3)
	got := body.Input[len(body.Input)-2:]
	require.Equal(t, golden.Tail[1]["output"], got[0]["output"], "wait_agent's output")
	require.Equal(t, golden.Tail[2], asCodexMessage(got[1]), "the notification message")
}

// asCodexMessage writes an easy input message (our user messages carry
// their text as a string) as Codex writes it: a typed message whose
// content is one input_text part. The API reads both alike.
func asCodexMessage(m map[string]any) map[string]any {
	out := map[string]any{"type": "message", "role": m["role"], "content": m["content"]}
	if s, ok := m["content"].(string); ok {
		out["content"] = []any{map[string]any{"type": "input_text", "text": s}}
	}
	return out
}

// TestLateNoticeGoesToTheNextTurn: a notice that reaches a turn during
// its last model call is not read by that call; the completed turn hands
// it to the next one (its Unsent), instead of dropping it.
func TestLateNoticeGoesToTheNextTurn(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(time.Minute).Return(answer(1, "done"), nil)
	text := noticeText(AgentState{ThreadID: "agent-1", Status: AgentCompleted, Message: "found it"})
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalAgentNotice, AgentNotice{Text: text}) }, 30*time.Second)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: text}}, res.Unsent)
}
