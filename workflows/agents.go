package workflows

import (
	"time"

	"github.com/google/uuid"

	"github.com/interpreter-dev/interpreter/harness"
)

// Sub-agents: a thread's turn may spawn threads of its own (Codex's
// spawn_agent and its siblings). Each sub-agent is a child ThreadWorkflow
// of the thread that spawned it, so it survives any crash, runs on any
// worker, and shows under its parent in the Web UI. The turn that calls a
// tool asks its thread by signal ([SignalAgentRequest]) and waits for the
// thread's answer ([SignalAgentReply]); the thread keeps the registry of
// its sub-agents, which report the end of each of their turns to it
// ([SignalAgentStatus]).
const (
	// SignalAgentRequest: a turn asks its thread to run a sub-agent tool
	// ([AgentRequest]).
	SignalAgentRequest = "agents.request"
	// SignalAgentReply: the thread's answer to a turn ([AgentReply]).
	SignalAgentReply = "agents.reply"
	// SignalAgentStatus: a sub-agent's turn ended ([AgentReport]); sent
	// to its parent thread.
	SignalAgentStatus = "agents.status"
	// SignalAgentInput: the parent gives a sub-agent a task
	// ([AgentInput]).
	SignalAgentInput = "agents.input"
	// SignalAgentClose: the parent closes a sub-agent, which closes its
	// own first.
	SignalAgentClose = "agents.close"

	// ItemCollabAgentToolCall is a sub-agent tool call (Item.Agent).
	ItemCollabAgentToolCall = "collab_agent_tool_call"
)

// Sub-agent statuses, as Codex's tools report them (final: completed,
// errored, shutdown, not_found).
const (
	AgentPendingInit = "pending_init"
	AgentRunning     = "running"
	AgentInterrupted = "interrupted"
	AgentCompleted   = "completed"
	AgentErrored     = "errored"
	AgentShutdown    = "shutdown"
	AgentNotFound    = "not_found"
)

// Roles of a sub-agent (spawn_agent's agent_type).
const (
	RoleDefault  = "default"
	RoleWorker   = "worker"
	RoleExplorer = "explorer"
)

// Defaults of [AgentsConfig] (Codex's agents.max_threads and
// agents.max_depth; Open Interpreter's job runtime).
const (
	DefaultAgentMaxThreads  = 6
	DefaultAgentMaxDepth    = 1
	DefaultAgentJobRuntime  = 30 * time.Minute
	defaultWaitTimeout      = 30 * time.Second
	minWaitTimeout          = 10 * time.Second
	maxWaitTimeout          = time.Hour
	maxAgentMessageInReport = 16 << 10
)

// AgentsConfig turns the sub-agent tools on and bounds them ([agents]).
type AgentsConfig struct {
	Enabled bool `json:"enabled,omitempty"`
	// MaxThreads bounds the open sub-agents of a thread (0: the default).
	MaxThreads int `json:"max_threads,omitempty"`
	// MaxDepth bounds how deep sub-agents nest: 1 lets the root spawn and
	// no sub-agent (0: the default).
	MaxDepth int `json:"max_depth,omitempty"`
	// JobRuntime bounds each turn of a sub-agent (0: the default).
	JobRuntime time.Duration `json:"job_runtime,omitempty"`
	// Models a sub-agent may be given besides its parent's own.
	Models []string `json:"models,omitempty"`
}

func (c *AgentsConfig) maxThreads() int {
	if c == nil || c.MaxThreads <= 0 {
		return DefaultAgentMaxThreads
	}
	return c.MaxThreads
}

func (c *AgentsConfig) maxDepth() int {
	if c == nil || c.MaxDepth <= 0 {
		return DefaultAgentMaxDepth
	}
	return c.MaxDepth
}

func (c *AgentsConfig) jobRuntime() time.Duration {
	if c == nil || c.JobRuntime <= 0 {
		return DefaultAgentJobRuntime
	}
	return c.JobRuntime
}

// AgentParent is what a sub-agent knows of where it came from.
type AgentParent struct {
	ThreadID string `json:"thread_id"`
	RootID   string `json:"root_id"`
	// Depth is 1 for the root's sub-agents.
	Depth    int    `json:"depth"`
	Role     string `json:"role,omitempty"`
	Nickname string `json:"nickname,omitempty"`
}

// SubAgent is a thread's record of one of its sub-agents.
type SubAgent struct {
	ID       string `json:"id"`
	Nickname string `json:"nickname,omitempty"`
	Role     string `json:"role"`
	Model    string `json:"model"`
	Status   string `json:"status"`
	// Message is the last turn's final message (completed) or error
	// (errored).
	Message string `json:"message,omitempty"`
	// Sent counts the turns the parent gave it; Done the last turn number
	// it reported. Its status is final only once Done reaches Sent.
	Sent int `json:"sent"`
	Done int `json:"done"`
	// Transcript, NextTurn and NextItem are where it stood at its last
	// report, for resume_agent.
	Transcript string `json:"transcript,omitempty"`
	NextTurn   int    `json:"next_turn,omitempty"`
	NextItem   int    `json:"next_item,omitempty"`
	// Before is the status it had when it was closed.
	Before string `json:"before,omitempty"`
	// Counted tells that the root holds a slot of max_threads for it
	// (agents of sub-agents).
	Counted bool `json:"counted,omitempty"`
	// SubagentType is the CLI's agent type a foreground tool started it
	// as (Task's, Agent's subagent_type).
	SubagentType string `json:"subagent_type,omitempty"`
	// Foreground tells that a foreground tool (Task, Agent) runs it and
	// returns its result: its parent's model gets no notice of it.
	Foreground bool `json:"foreground,omitempty"`
	// Config is what it was started with, which resume_agent starts it
	// with again.
	Config *ThreadConfig `json:"config,omitempty"`
}

// AgentRequest is the payload of [SignalAgentRequest].
type AgentRequest struct {
	TurnID string `json:"turn_id"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Args are the call's arguments, as the harness decoded them.
	Args harness.AgentArgs `json:"args"`
	// Config is the turn's config, which a spawned agent starts from.
	Config ThreadConfig `json:"config"`
	// Code is the asking turn's code ([TurnInput.Code]), so that a thread
	// of a later build can answer as that turn expects.
	Code int `json:"code,omitempty"`
	// Transcript is the turn's conversation when it asked, for a spawn
	// with fork_context, and DocsDigest the instructions files it showed
	// (the copy has them, so the agent need not be shown them again).
	Transcript string `json:"transcript,omitempty"`
	DocsDigest string `json:"docs_digest,omitempty"`
}

// AgentReply is the payload of [SignalAgentReply].
type AgentReply struct {
	CallID string `json:"call_id"`
	// Output is the JSON the model reads; Error a refusal it reads
	// instead.
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	// Agents are the agents the call concerned, for the item.
	Agents []AgentState `json:"agents,omitempty"`
	// Resumed tells that a foreground run ([harness.AgentRun]) went on
	// with an agent it reopened.
	Resumed bool `json:"resumed,omitempty"`
	// SubagentType is the CLI's agent type the run's agent was started
	// with.
	SubagentType string `json:"subagent_type,omitempty"`
}

// AgentInput is the payload of [SignalAgentInput]: a turn to queue, or
// with Interrupt one that replaces whatever the agent was doing or was
// about to do.
type AgentInput struct {
	Prompt    string `json:"prompt"`
	Interrupt bool   `json:"interrupt,omitempty"`
}

// AgentReport is the payload of [SignalAgentStatus].
type AgentReport struct {
	AgentID    string `json:"agent_id"`
	Number     int    `json:"number"`
	Status     string `json:"status"`
	Message    string `json:"message,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	NextTurn   int    `json:"next_turn"`
	NextItem   int    `json:"next_item"`
}

// AgentState is one agent's status as an item shows it.
type AgentState struct {
	ThreadID string `json:"thread_id"`
	Nickname string `json:"nickname,omitempty"`
	Role     string `json:"role,omitempty"`
	// Model is the one it runs (front ends show it for a spawn that
	// named none).
	Model   string `json:"model,omitempty"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// AgentCall is what a collab_agent_tool_call item holds.
type AgentCall struct {
	Tool           string       `json:"tool"`
	SenderThreadID string       `json:"sender_thread_id"`
	Receivers      []string     `json:"receiver_thread_ids,omitempty"`
	Prompt         string       `json:"prompt,omitempty"`
	Model          string       `json:"model,omitempty"`
	Effort         string       `json:"reasoning_effort,omitempty"`
	Agents         []AgentState `json:"agents,omitempty"`
}

// AgentID is the thread id of a thread's n-th sub-agent: a UUID, as
// Codex's thread ids are, derived from the parent's id so that it needs
// no randomness.
func AgentID(parent string, n int) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("interpreter:"+parent+"/agent-"+itoa(n))).String()
}

func msDuration(ms float64) time.Duration {
	if ms > float64(maxWaitTimeout/time.Millisecond) {
		return maxWaitTimeout
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// finalStatus tells whether a wait ends on this status.
func finalStatus(s string) bool {
	switch s {
	case AgentCompleted, AgentErrored, AgentShutdown, AgentNotFound:
		return true
	}
	return false
}

// agentsView is the registry without the agents' configs.
func agentsView(agents []SubAgent) []SubAgent {
	if len(agents) == 0 {
		return nil
	}
	out := make([]SubAgent, len(agents))
	for i, a := range agents {
		a.Config = nil
		out[i] = a
	}
	return out
}
