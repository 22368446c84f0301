package appserver

import (
	"context"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"

	"github.com/interpreter-dev/interpreter/workflows"
)

// collabTools maps the sub-agent tools onto the protocol's CollabAgentTool.
var collabTools = map[string]string{
	"spawn_agent": "spawnAgent", "send_input": "sendInput", "wait_agent": "wait",
	"close_agent": "closeAgent", "resume_agent": "resumeAgent",
}

// collabStatuses maps sub-agent statuses onto CollabAgentStatus.
var collabStatuses = map[string]string{
	workflows.AgentPendingInit: "pendingInit", workflows.AgentRunning: "running",
	workflows.AgentInterrupted: "interrupted", workflows.AgentCompleted: "completed",
	workflows.AgentErrored: "errored", workflows.AgentShutdown: "shutdown", workflows.AgentNotFound: "notFound",
}

// collabItem renders a sub-agent tool call as Codex's
// collabAgentToolCall item: who called, which agents, their states.
func collabItem(it *workflows.Item) protocol.CollabAgentToolCallItem {
	a := it.Agent
	if a == nil {
		a = &workflows.AgentCall{}
	}
	status := protocol.StatusInProgress
	switch it.Status {
	case workflows.StatusCompleted:
		status = protocol.StatusCompleted
	case workflows.StatusInterrupted:
		status = protocol.StatusInterrupted
	case workflows.StatusFailed, workflows.StatusDeclined:
		status = protocol.StatusFailed
	}
	states := map[string]protocol.CollabAgentState{}
	for _, s := range a.Agents {
		states[s.ThreadID] = protocol.CollabAgentState{Status: orDefault(collabStatuses[s.Status], "notFound"), Message: protocol.Nullable(s.Message)}
	}
	receivers := append([]string{}, a.Receivers...)
	model := a.Model
	if model == "" && a.Tool == "spawn_agent" && len(a.Agents) > 0 {
		model = a.Agents[0].Model // as Codex's completed spawn: the model it runs
	}
	return protocol.CollabAgentToolCallItem{ID: it.ID, Tool: orDefault(collabTools[a.Tool], "spawnAgent"),
		Status: status, SenderThreadID: a.SenderThreadID, ReceiverThreadIDs: receivers,
		Prompt: protocol.Nullable(a.Prompt), Model: protocol.Nullable(model), ReasoningEffort: protocol.Nullable(a.Effort),
		AgentsStates: states}
}

// subAgentThread marks a sub-agent's thread as Codex marks one: its
// parent, nickname and role, and a subAgent thread_spawn source.
func subAgentThread(th *Thread, p workflows.AgentParent) {
	parent, nick, role := p.ThreadID, p.Nickname, p.Role
	th.ParentThreadID = &parent
	if nick != "" {
		th.AgentNickname = &nick
	}
	if role != "" {
		th.AgentRole = &role
	}
	th.Source = protocol.SessionSource{SubAgent: &protocol.ThreadSpawn{
		ParentThreadID: parent, Depth: p.Depth, AgentNickname: protocol.Nullable(nick), AgentRole: protocol.Nullable(role)}}
}

// announceSubAgent sends thread/started for the thread a completed
// spawn_agent started, as Codex announces a spawned agent's thread. It
// reads the thread in the background: the turn's notifications go on.
func (c *conn) announceSubAgent(it *workflows.Item) {
	if it.Status != workflows.StatusCompleted || it.Agent == nil || it.Agent.Tool != "spawn_agent" || len(it.Agent.Receivers) == 0 {
		return
	}
	id := it.Agent.Receivers[0]
	go func() {
		ctx, cancel := c.requestContext()
		defer cancel()
		info, err := c.s.backend.Thread(ctx, id)
		if err != nil {
			return // the spawn item itself still shows the agent
		}
		c.notify(notice(protocol.ThreadStarted{Thread: c.thread(info, statusActive(), nil)}))
	}()
}

// followAgents makes the connection follow the threads a completed
// sub-agent call concerns, as Codex's app-server streams a spawned
// agent's notifications to its root's client: thread/status/changed,
// turn/started, items and turn/completed with the sub-agent's threadId,
// for each of its turns from its first (a sub-agent's turns are never
// "already there" for this connection, so none is skipped as seen).
func (c *conn) followAgents(it *workflows.Item) {
	if it.Agent == nil || it.Status != workflows.StatusCompleted {
		return
	}
	for _, id := range it.Agent.Receivers {
		c.mu.Lock()
		if c.threads[id] == nil {
			ts := &threadState{id: id, followed: map[string]bool{}, seeded: true}
			ts.ctx, ts.stop = context.WithCancel(c.ctx)
			c.threads[id] = ts
			c.watch(ts)
		}
		c.mu.Unlock()
	}
}

// sourceMatches applies thread/list's sourceKinds and parentThreadId: as
// in Codex, no kinds means the interactive threads, which sub-agents are
// not; subAgent or subAgentThreadSpawn asks for them.
func sourceMatches(info ThreadInfo, kinds []string, parent *string) bool {
	sub := info.Parent != nil || (info.View != nil && info.View.Parent != nil)
	if parent != nil {
		return sub && parentOf(info) == *parent
	}
	if len(kinds) == 0 {
		return !sub
	}
	for _, k := range kinds {
		switch k {
		case "subAgent", "subAgentThreadSpawn":
			if sub {
				return true
			}
		case "cli", "vscode", "exec", "appServer", "unknown":
			if !sub {
				return true
			}
		}
	}
	return false
}

func parentOf(info ThreadInfo) string {
	if info.View != nil && info.View.Parent != nil {
		return info.View.Parent.ThreadID
	}
	if info.Parent != nil {
		return info.Parent.ThreadID
	}
	return ""
}
