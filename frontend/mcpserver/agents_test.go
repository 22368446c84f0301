package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The root turn's sub-agent tool calls go out as Codex's collab messages
// (checked against 0.140's mcp-server, see TestCollabMessagesMatchCodex140),
// field for field: spawn (and a refused spawn), send_input,
// wait_agent, close_agent (with the status the agent had before) and
// resume_agent, each a begin and an end; a call read only at its end
// still gets both.
func TestSubAgentCollabEvents(t *testing.T) {
	defer func(f func() int64) { nowMs = f }(nowMs)
	nowMs = func() int64 { return 1700 }
	const root, kid = "root-thread", "kid-thread"
	call := func(id, tool string, c workflows.AgentCall) (*workflows.Item, *workflows.Item) {
		c.Tool, c.SenderThreadID = tool, root
		begin := &workflows.Item{ID: id, Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusInProgress, Agent: &c}
		end := *begin
		done := c
		end.Agent, end.Status = &done, workflows.StatusCompleted
		return begin, &end
	}
	running := workflows.AgentState{ThreadID: kid, Nickname: "Ada", Role: "explorer", Model: "gpt-5.1", Status: workflows.AgentRunning}
	completed := running
	completed.Status, completed.Message = workflows.AgentCompleted, "alpha report"
	shut := running
	shut.Status = workflows.AgentShutdown

	spawnB, spawnE := call("item_1", "spawn_agent", workflows.AgentCall{Prompt: "investigate alpha"})
	spawnE.Agent.Agents, spawnE.Agent.Receivers = []workflows.AgentState{running}, []string{kid}
	_, refused := call("item_2", "spawn_agent", workflows.AgentCall{Prompt: "one too many", Model: "gpt-5-mini", Effort: "low"})
	refused.Status, refused.Message = workflows.StatusFailed, "agent thread limit reached (agents.max_threads = 1; 1 open)"
	sendB, sendE := call("item_3", "send_input", workflows.AgentCall{Prompt: "and more", Receivers: []string{kid}})
	sendE.Agent.Agents = []workflows.AgentState{running}
	waitB, waitE := call("item_4", "wait_agent", workflows.AgentCall{Receivers: []string{kid}})
	waitE.Agent.Agents = []workflows.AgentState{completed}
	closeB, closeE := call("item_5", "close_agent", workflows.AgentCall{Receivers: []string{kid}})
	closeE.Agent.Agents = []workflows.AgentState{shut}
	resumeB, resumeE := call("item_6", "resume_agent", workflows.AgentCall{Receivers: []string{kid}})
	resumeE.Agent.Agents = []workflows.AgentState{completed}

	h := newHarness(t, func(string) *fakeTurn {
		evs := []workflows.Event{{Type: workflows.EventTurnStarted}}
		for _, p := range [][2]*workflows.Item{{spawnB, spawnE}, {nil, refused}, {sendB, sendE}, {waitB, waitE}, {closeB, closeE}, {resumeB, resumeE}} {
			if p[0] != nil {
				evs = append(evs, workflows.Event{Type: workflows.EventItemStarted, Item: p[0]})
			}
			evs = append(evs, workflows.Event{Type: workflows.EventItemCompleted, Item: p[1]})
		}
		evs = append(evs, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_7", Type: workflows.ItemAgentMessage, Text: "done"}},
			workflows.Event{Type: workflows.EventTurnCompleted})
		return &fakeTurn{events: evs, result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: "done"}}
	})
	params := &mcp.CallToolParams{Name: ToolCodex, Arguments: map[string]any{"prompt": "three investigations"}}
	params.SetProgressToken("tok-1")
	res, err := h.client.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	want := []string{"session_configured", "task_started",
		"collab_agent_spawn_begin", "collab_agent_spawn_end", "collab_agent_spawn_begin", "collab_agent_spawn_end",
		"collab_agent_interaction_begin", "collab_agent_interaction_end", "collab_waiting_begin", "collab_waiting_end",
		"collab_close_begin", "collab_close_end", "collab_resume_begin", "collab_resume_end",
		"agent_message_delta", "agent_message", "token_count", "task_complete"}
	if got := h.eventTypes(); !slices.Equal(got, want) {
		t.Fatalf("codex/event types %v, want %v", got, want)
	}
	evs := h.rec.notices("codex/event")
	for i, w := range map[int]string{
		2: `{"call_id":"item_1","model":"","prompt":"investigate alpha","reasoning_effort":"medium","sender_thread_id":"root-thread","started_at_ms":1700,"type":"collab_agent_spawn_begin"}`,
		3: `{"call_id":"item_1","completed_at_ms":1700,"model":"gpt-5.1","new_agent_nickname":"Ada","new_agent_role":"explorer","new_thread_id":"kid-thread",` +
			`"prompt":"investigate alpha","reasoning_effort":"medium","sender_thread_id":"root-thread","status":"pending_init","type":"collab_agent_spawn_end"}`,
		5: `{"call_id":"item_2","completed_at_ms":1700,"model":"gpt-5-mini","new_thread_id":null,"prompt":"one too many","reasoning_effort":"low",` +
			`"sender_thread_id":"root-thread","status":"not_found","type":"collab_agent_spawn_end"}`,
		6: `{"call_id":"item_3","prompt":"and more","receiver_thread_id":"kid-thread","sender_thread_id":"root-thread","started_at_ms":1700,"type":"collab_agent_interaction_begin"}`,
		7: `{"call_id":"item_3","completed_at_ms":1700,"prompt":"and more","receiver_agent_nickname":"Ada","receiver_agent_role":"explorer","receiver_thread_id":"kid-thread",` +
			`"sender_thread_id":"root-thread","status":"running","type":"collab_agent_interaction_end"}`,
		8: `{"call_id":"item_4","receiver_agents":[{"agent_nickname":"Ada","agent_role":"explorer","thread_id":"kid-thread"}],"receiver_thread_ids":["kid-thread"],` +
			`"sender_thread_id":"root-thread","started_at_ms":1700,"type":"collab_waiting_begin"}`,
		9: `{"agent_statuses":[{"agent_nickname":"Ada","agent_role":"explorer","status":{"completed":"alpha report"},"thread_id":"kid-thread"}],"call_id":"item_4",` +
			`"completed_at_ms":1700,"sender_thread_id":"root-thread","statuses":{"kid-thread":{"completed":"alpha report"}},"type":"collab_waiting_end"}`,
		10: `{"call_id":"item_5","receiver_thread_id":"kid-thread","sender_thread_id":"root-thread","started_at_ms":1700,"type":"collab_close_begin"}`,
		11: `{"call_id":"item_5","completed_at_ms":1700,"receiver_agent_nickname":"Ada","receiver_agent_role":"explorer","receiver_thread_id":"kid-thread",` +
			`"sender_thread_id":"root-thread","status":{"completed":"alpha report"},"type":"collab_close_end"}`,
		12: `{"call_id":"item_6","receiver_thread_id":"kid-thread","sender_thread_id":"root-thread","started_at_ms":1700,"type":"collab_resume_begin"}`,
		13: `{"call_id":"item_6","completed_at_ms":1700,"receiver_agent_nickname":"Ada","receiver_agent_role":"explorer","receiver_thread_id":"kid-thread",` +
			`"sender_thread_id":"root-thread","status":"pending_init","type":"collab_resume_end"}`,
	} {
		b, err := json.Marshal(evs[i].Params["msg"])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != w {
			t.Errorf("message %d:\n got %s\nwant %s", i, b, w)
		}
	}
	var summaries []string
	for _, n := range h.rec.notices("notifications/progress") {
		if m, _ := n.Params["message"].(string); m != "" {
			summaries = append(summaries, m)
		}
	}
	if !slices.Contains(summaries, "sub-agent started: kid-thread") || !slices.Contains(summaries, "waiting for sub-agents") {
		t.Errorf("progress messages %q, want the spawn and the wait", summaries)
	}
}

// A foreground sub-agent call (claude-code's Task, kimi-cli's Agent) goes
// out as a spawn whose end comes when the agent is done.
func TestRunAgentIsASpawn(t *testing.T) {
	defer func(f func() int64) { nowMs = f }(nowMs)
	nowMs = func() int64 { return 5 }
	var m eventMapper
	call := &workflows.AgentCall{Tool: runAgent, SenderThreadID: "root", Prompt: "find the bug"}
	begin := &workflows.Item{ID: "item_1", Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusInProgress, Agent: call}
	doneCall := *call
	doneCall.Receivers = []string{"kid"}
	doneCall.Agents = []workflows.AgentState{{ThreadID: "kid", Nickname: "Ada", Role: "explorer", Model: "m", Status: workflows.AgentShutdown}}
	done := &workflows.Item{ID: "item_1", Type: workflows.ItemCollabAgentToolCall, Status: workflows.StatusCompleted, Agent: &doneCall}
	var got []string
	for _, e := range []workflows.Event{{Type: workflows.EventItemStarted, Item: begin}, {Type: workflows.EventItemCompleted, Item: done}} {
		for _, msg := range m.messages(e) {
			b, _ := json.Marshal(wireEvent{msg})
			got = append(got, string(b))
		}
	}
	want := []string{
		`{"call_id":"item_1","model":"","prompt":"find the bug","reasoning_effort":"medium","sender_thread_id":"root","started_at_ms":5,"type":"collab_agent_spawn_begin"}`,
		`{"call_id":"item_1","completed_at_ms":5,"model":"m","new_agent_nickname":"Ada","new_agent_role":"explorer","new_thread_id":"kid","prompt":"find the bug",` +
			`"reasoning_effort":"medium","sender_thread_id":"root","status":"shutdown","type":"collab_agent_spawn_end"}`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
