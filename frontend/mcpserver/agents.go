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

// agentStatus is an agent's state as Codex's AgentStatus serializes.
func agentStatus(s workflows.AgentState) any {
	switch s.Status {
	case workflows.AgentCompleted:
		if s.Message == "" {
			return map[string]any{"completed": nil}
		}
		return map[string]any{"completed": s.Message}
	case workflows.AgentErrored:
		return map[string]any{"errored": s.Message}
	case "":
		return workflows.AgentNotFound
	}
	return s.Status
}

// collabBegin is the begin message of a sub-agent tool call.
func (m *eventMapper) collabBegin(it *workflows.Item) msg {
	a := it.Agent
	base := msg{"call_id": it.ID, "started_at_ms": nowMs(), "sender_thread_id": a.SenderThreadID}
	receiver := first(a.Receivers)
	switch a.Tool {
	case "spawn_agent", runAgent:
		base["type"], base["prompt"], base["model"], base["reasoning_effort"] = "collab_agent_spawn_begin", a.Prompt, a.Model, effort(a)
	case "send_input":
		base["type"], base["receiver_thread_id"], base["prompt"] = "collab_agent_interaction_begin", receiver, a.Prompt
	case "wait_agent":
		base["type"], base["receiver_thread_ids"] = "collab_waiting_begin", orEmpty(a.Receivers)
		var refs []any
		for _, id := range a.Receivers {
			if k, ok := m.agents[id]; ok {
				refs = append(refs, agentRef(k, nil))
			}
		}
		if len(refs) > 0 {
			base["receiver_agents"] = refs
		}
	case "close_agent":
		base["type"], base["receiver_thread_id"] = "collab_close_begin", receiver
	case "resume_agent":
		// Codex 0.140 names the agent only in the end.
		base["type"], base["receiver_thread_id"] = "collab_resume_begin", receiver
	default:
		return nil
	}
	return base
}

// collabEnd is the end message of a sub-agent tool call; it also keeps
// what it says of the agents, for the later messages of the stream.
func (m *eventMapper) collabEnd(it *workflows.Item) msg {
	a := it.Agent
	base := msg{"call_id": it.ID, "completed_at_ms": nowMs(), "sender_thread_id": a.SenderThreadID}
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
	switch a.Tool {
	case "spawn_agent", runAgent:
		base["type"], base["prompt"], base["model"], base["reasoning_effort"] = "collab_agent_spawn_end", a.Prompt, orDefault(a.Model, st.Model), effort(a)
		base["new_thread_id"] = nil
		base["status"] = workflows.AgentNotFound
		if it.Status == workflows.StatusCompleted && st.ThreadID != "" {
			base["new_thread_id"], base["status"] = st.ThreadID, agentStatus(st)
			if a.Tool == "spawn_agent" && st.Status == workflows.AgentRunning {
				// Codex 0.140 reports a just-spawned agent as not yet
				// started, whether or not its first turn has begun.
				base["status"] = workflows.AgentPendingInit
			}
			if st.Nickname != "" {
				base["new_agent_nickname"] = st.Nickname
			}
			if st.Role != "" {
				base["new_agent_role"] = st.Role
			}
		}
	case "send_input":
		base["type"], base["receiver_thread_id"], base["prompt"], base["status"] = "collab_agent_interaction_end", st.ThreadID, a.Prompt, agentStatus(st)
		m.addNames(base, st)
	case "wait_agent":
		base["type"] = "collab_waiting_end"
		entries, statuses := []any{}, map[string]any{}
		for _, s := range a.Agents {
			if !final(s.Status) {
				continue // as the tool's result: the agents that are done
			}
			e := agentRef(s, agentStatus(s))
			entries = append(entries, e)
			statuses[s.ThreadID] = agentStatus(s)
		}
		if len(entries) > 0 {
			base["agent_statuses"] = entries
		}
		base["statuses"] = statuses
	case "close_agent":
		base["type"], base["receiver_thread_id"] = "collab_close_end", st.ThreadID
		if known && before.Status != "" {
			base["status"] = agentStatus(before)
		} else {
			base["status"] = agentStatus(st)
		}
		m.addNames(base, st)
	case "resume_agent":
		base["type"], base["receiver_thread_id"], base["status"] = "collab_resume_end", st.ThreadID, agentStatus(st)
		if it.Status == workflows.StatusCompleted && reopened(st.Status) {
			// A reopened agent waits for input: Codex 0.140 says
			// pending_init, not the last status it had before the close.
			base["status"] = workflows.AgentPendingInit
		}
		m.addNames(base, st)
	default:
		return nil
	}
	return base
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

// addNames sets receiver_agent_nickname and receiver_agent_role, when
// known.
func (m *eventMapper) addNames(out msg, s workflows.AgentState) {
	if s.Nickname != "" {
		out["receiver_agent_nickname"] = s.Nickname
	}
	if s.Role != "" {
		out["receiver_agent_role"] = s.Role
	}
}

// agentRef is Codex's CollabAgentRef, or with a status its
// CollabAgentStatusEntry.
func agentRef(s workflows.AgentState, status any) map[string]any {
	out := map[string]any{"thread_id": s.ThreadID}
	if s.Nickname != "" {
		out["agent_nickname"] = s.Nickname
	}
	if s.Role != "" {
		out["agent_role"] = s.Role
	}
	if status != nil {
		out["status"] = status
	}
	return out
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
