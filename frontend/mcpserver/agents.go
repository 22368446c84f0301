package mcpserver

import (
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Sub-agent tool calls (collab_agent_tool_call items) go out as Codex's
// collab event messages, as Codex 0.140's own mcp-server sends them
// (testdata/codex140_collab.jsonl, TestCollabMessagesMatchCodex140): a
// begin when the call starts and an end when it completes, per tool:
//
//	spawn_agent   collab_agent_spawn_begin / collab_agent_spawn_end
//	run_agent     the same (claude-code's Task, kimi-cli's Agent: a spawn
//	              whose call ends when the agent is done)
//	send_input    collab_agent_interaction_begin / collab_agent_interaction_end
//	wait_agent    collab_waiting_begin / collab_waiting_end
//	close_agent   collab_close_begin / collab_close_end
//	resume_agent  collab_resume_begin / collab_resume_end
//
// Field names and shapes are Codex's (protocol CollabAgentSpawnBeginEvent
// and its siblings); an agent's status serializes as Codex's AgentStatus:
// "pending_init", "running", {"completed": message}, {"errored": message},
// "shutdown"... Only the root's own log is streamed: Codex's stream
// carries no event of a sub-agent's and no sub_agent_activity either.
// The log holds no clock, so started_at_ms and completed_at_ms are when
// this server saw the event (Codex fills them as the call starts and
// ends; a stream read live differs by the follow latency).

// runAgent is the tool of a foreground sub-agent call (harness.AgentRun).
const runAgent = "run_agent"

// nowMs is the clock of the collab messages' timestamps (tests fix it).
var nowMs = func() int64 { return time.Now().UnixMilli() }

// defaultEffort stands for the reasoning effort of a sub-agent spawned
// without one (it inherits its parent's, which the log does not hold);
// Codex's field is not optional, and its own begin shows this one too.
const defaultEffort = "medium"

// statusOf is an agent's state as Codex's AgentStatus serializes.
func statusOf(s workflows.AgentState) agentStatus {
	switch s.Status {
	case workflows.AgentCompleted:
		return agentStatus{Name: s.Status, Message: nilIfEmpty(s.Message)}
	case workflows.AgentErrored:
		msg := s.Message
		return agentStatus{Name: s.Status, Message: &msg}
	case "":
		return agentStatus{Name: workflows.AgentNotFound}
	}
	return agentStatus{Name: s.Status}
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// collabBegin is the begin message of a sub-agent tool call (nil for a
// tool that has none).
func (m *eventMapper) collabBegin(it *workflows.Item) msg {
	a := it.Agent
	base := collabBegin{CallID: it.ID, StartedAtMs: nowMs(), SenderThreadID: a.SenderThreadID}
	receiver := first(a.Receivers)
	switch a.Tool {
	case "spawn_agent", runAgent:
		return collabSpawnBeginEvent{collabBegin: base, Prompt: a.Prompt, Model: a.Model, ReasoningEffort: effort(a)}
	case "send_input":
		return collabInteractionBeginEvent{collabBegin: base, ReceiverThreadID: receiver, Prompt: a.Prompt}
	case "wait_agent":
		e := collabWaitingBeginEvent{collabBegin: base, ReceiverThreadIDs: orEmpty(a.Receivers)}
		for _, id := range a.Receivers {
			if k, ok := m.agents[id]; ok {
				e.ReceiverAgents = append(e.ReceiverAgents, agentRefOf(k, nil))
			}
		}
		return e
	case "close_agent":
		return collabCloseBeginEvent{collabBegin: base, ReceiverThreadID: receiver}
	case "resume_agent":
		return collabResumeBeginEvent{collabBegin: base, ReceiverThreadID: receiver}
	}
	return nil
}

// collabEnd is the end message of a sub-agent tool call (nil for a tool
// that has none); it also keeps what it says of the agents, for the later
// messages of the stream.
func (m *eventMapper) collabEnd(it *workflows.Item) msg {
	a := it.Agent
	base := collabEnd{CallID: it.ID, CompletedAtMs: nowMs(), SenderThreadID: a.SenderThreadID}
	var st workflows.AgentState
	if len(a.Agents) > 0 {
		st = a.Agents[0]
	} else {
		st.ThreadID = first(a.Receivers)
	}
	if k, ok := m.agents[st.ThreadID]; ok {
		st.Nickname, st.Role = orDefault(st.Nickname, k.Nickname), orDefault(st.Role, k.Role)
	}
	// close_agent reports the status the agent had before the close: the
	// last one this stream knew, else what the call left.
	before, known := m.agents[st.ThreadID]
	defer func() { m.remember(a.Agents) }()
	names := receiverNames{ReceiverAgentNickname: st.Nickname, ReceiverAgentRole: st.Role}
	switch a.Tool {
	case "spawn_agent", runAgent:
		e := collabSpawnEndEvent{collabEnd: base, Prompt: a.Prompt, Model: orDefault(a.Model, st.Model), ReasoningEffort: effort(a),
			Status: agentStatus{Name: workflows.AgentNotFound}}
		if it.Status == workflows.StatusCompleted && st.ThreadID != "" {
			id := st.ThreadID
			e.NewThreadID, e.Status = &id, statusOf(st)
			if a.Tool == "spawn_agent" && st.Status == workflows.AgentRunning {
				// Codex 0.140 reports a just-spawned agent as not yet
				// started, whether or not its first turn has begun.
				e.Status = agentStatus{Name: workflows.AgentPendingInit}
			}
			e.NewAgentNickname, e.NewAgentRole = st.Nickname, st.Role
		}
		return e
	case "send_input":
		return collabInteractionEndEvent{collabEnd: base, ReceiverThreadID: st.ThreadID, Prompt: a.Prompt, Status: statusOf(st),
			receiverNames: names}
	case "wait_agent":
		e := collabWaitingEndEvent{collabEnd: base, Statuses: map[string]agentStatus{}}
		for _, s := range a.Agents {
			if !final(s.Status) {
				continue // as the tool's result: the agents that are done
			}
			status := statusOf(s)
			e.AgentStatuses = append(e.AgentStatuses, agentRefOf(s, &status))
			e.Statuses[s.ThreadID] = status
		}
		return e
	case "close_agent":
		e := collabCloseEndEvent{collabEnd: base, ReceiverThreadID: st.ThreadID, Status: statusOf(st), receiverNames: names}
		if known && before.Status != "" {
			e.Status = statusOf(before)
		}
		return e
	case "resume_agent":
		e := collabResumeEndEvent{collabEnd: base, ReceiverThreadID: st.ThreadID, Status: statusOf(st), receiverNames: names}
		if it.Status == workflows.StatusCompleted && reopened(st.Status) {
			// A reopened agent waits for input: Codex 0.140 says
			// pending_init, not the last status it had before the close.
			e.Status = agentStatus{Name: workflows.AgentPendingInit}
		}
		return e
	}
	return nil
}

// remember keeps the agents' last states the stream has shown.
func (m *eventMapper) remember(states []workflows.AgentState) {
	if m.agents == nil {
		m.agents = map[string]workflows.AgentState{}
	}
	for _, s := range states {
		k := m.agents[s.ThreadID]
		s.Nickname, s.Role = orDefault(s.Nickname, k.Nickname), orDefault(s.Role, k.Role)
		m.agents[s.ThreadID] = s
	}
}

// agentRefOf is Codex's CollabAgentRef, or with a status its
// CollabAgentStatusEntry.
func agentRefOf(s workflows.AgentState, status *agentStatus) agentRef {
	return agentRef{ThreadID: s.ThreadID, AgentNickname: s.Nickname, AgentRole: s.Role, Status: status}
}

// reopened: a resumed agent in this state sits idle, waiting for input.
func reopened(status string) bool {
	switch status {
	case workflows.AgentCompleted, workflows.AgentShutdown, workflows.AgentPendingInit:
		return true
	}
	return false
}

func final(status string) bool {
	switch status {
	case workflows.AgentCompleted, workflows.AgentErrored, workflows.AgentShutdown, workflows.AgentNotFound:
		return true
	}
	return false
}

func effort(a *workflows.AgentCall) string { return orDefault(a.Effort, defaultEffort) }

func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
