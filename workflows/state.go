package workflows

import (
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/harness"
)

// ThreadInput starts (or continues as new) a thread.
type ThreadInput struct {
	ThreadID string       `json:"thread_id"`
	Config   ThreadConfig `json:"config"`
	// State is set when the thread continued as new.
	State *ThreadState `json:"state,omitempty"`
	// Parent is set for a sub-agent's thread; First is its task, the
	// turn it starts with.
	Parent *AgentParent      `json:"parent,omitempty"`
	First  *StartTurnRequest `json:"first,omitempty"`
	// Transcript is the conversation a forked sub-agent starts with (a
	// copy of its parent's; see [thread.fork]), DocsDigest the
	// instructions files that copy shows.
	Transcript string `json:"transcript,omitempty"`
	DocsDigest string `json:"docs_digest,omitempty"`
}

// Carried is what a thread hands each turn and the turn hands back: the
// conversation and what goes with it from turn to turn. [ThreadState],
// [TurnInput], [TurnState] and [TurnResult] embed it, so each passes it
// on with one assignment; embedded, its fields keep their JSON names.
type Carried struct {
	// Transcript references the conversation in the store; NextItem is
	// the number of the next item id.
	Transcript string `json:"transcript,omitempty"`
	NextItem   int    `json:"next_item"`
	// Unsent are entries the model has not read yet (tool outputs of a
	// turn that ended after its tools ran, sub-agents' notices): the next
	// turn sends them before its prompt, so the transcript never holds a
	// tool call without its output.
	Unsent []harness.Entry `json:"unsent,omitempty"`
	// SessionApprovals are the thread's "approve for the session"
	// decisions so far.
	SessionApprovals []SessionApproval `json:"session_approvals,omitempty"`
	// ContextTokens is the conversation's size at the last model call
	// (its input and output tokens).
	ContextTokens int64 `json:"context_tokens,omitempty"`
	// DocsDigest identifies the instructions files the model was shown
	// last (see [turn.showDocs]).
	DocsDigest string `json:"docs_digest,omitempty"`
	// ExecSessions are the thread's open unified-exec sessions;
	// NextSession is the next session id, SessionUses the use counter
	// that orders them (see unifiedexec.go).
	ExecSessions []ExecSession `json:"exec_sessions,omitempty"`
	NextSession  int           `json:"next_session,omitempty"`
	SessionUses  int           `json:"session_uses,omitempty"`
}

// ThreadState is everything a thread carries: continue-as-new passes it
// whole.
type ThreadState struct {
	Config ThreadConfig `json:"config"`
	Carried
	Turns    []TurnResult  `json:"turns,omitempty"`
	NextTurn int           `json:"next_turn"`
	Usage    harness.Usage `json:"usage"`
	Queue    []QueuedTurn  `json:"queue,omitempty"`
	Running  string        `json:"running,omitempty"`
	// LateNotices are sub-agents' notices whose turn closed before they
	// reached it; the next turn sends them before its prompt.
	LateNotices []string `json:"late_notices,omitempty"`
	// MemoryRef is the transcript whose memory was last extracted;
	// MemorySummary the consolidated memory the thread started with.
	MemoryRef     string `json:"memory_ref,omitempty"`
	MemorySummary string `json:"memory_summary,omitempty"`
	MemoryLoaded  bool   `json:"memory_loaded,omitempty"`
	// Name is the thread's name ([UpdateSetName]).
	Name string `json:"name,omitempty"`
	// Parent is set when the thread is a sub-agent; Agents are the
	// thread's own sub-agents, NextAgent the number of the last spawned.
	Parent    *AgentParent `json:"parent,omitempty"`
	Agents    []SubAgent   `json:"agents,omitempty"`
	NextAgent int          `json:"next_agent,omitempty"`
	// TreeAgents are, in a root, the open agents of its sub-agents, which
	// count against max_threads with its own (see agenttree.go).
	TreeAgents []string `json:"tree_agents,omitempty"`
	// AgentApprovals are the pending approvals of the thread's sub-agents
	// (of any depth) relayed to it as the root; each new turn starts with
	// them in its log.
	AgentApprovals []Approval `json:"agent_approvals,omitempty"`
	// Goal is the thread's goal (goal.go); nil when it has none.
	Goal *Goal `json:"goal,omitempty"`
	// Background terminals (bgterm.go): BgNotices are ends not told to a
	// turn yet (they wake the thread), BgInFlight those passed to the
	// running turn, BgEnded the sessions that ended while it ran, BgIdle
	// when each watched session's idle lifetime ends.
	BgNotices  []string     `json:"bg_notices,omitempty"`
	BgInFlight []string     `json:"bg_in_flight,omitempty"`
	BgEnded    []int        `json:"bg_ended,omitempty"`
	BgIdle     []BgIdleMark `json:"bg_idle,omitempty"`
	// BgExits are the last background terminals that ended, for the
	// front ends' late item/completed (bgtermended.go).
	BgExits []EndedTerminal `json:"bg_exits,omitempty"`
	// Waiting are the approvals the running turn waits for
	// (approvalstatus.go).
	Waiting []ApprovalWaiting `json:"waiting,omitempty"`
}

// QueuedTurn is an accepted turn that has not started yet.
type QueuedTurn struct {
	TurnID  string           `json:"turn_id"`
	Number  int              `json:"number"`
	Request StartTurnRequest `json:"request"`
	// Goal marks a continuation turn the thread started for its goal.
	Goal bool `json:"goal,omitempty"`
	// Input is the turn's input as the thread prepared it for a quick
	// turn (quickturn.go); Taken tells the thread took in its result
	// already, so the turn's workflow only records it.
	Input *TurnInput `json:"input,omitempty"`
	Taken bool       `json:"taken,omitempty"`
}

// TurnInput starts (or continues as new) a turn.
type TurnInput struct {
	// Prompt comes first so the Input box on the turn's page in the Web UI
	// starts with it.
	Prompt   string       `json:"prompt"`
	ThreadID string       `json:"thread_id"`
	TurnID   string       `json:"turn_id"`
	Number   int          `json:"number"`
	Config   ThreadConfig `json:"config"`
	// Carried is the thread's as the turn starts.
	Carried
	// Images attached to the prompt, read into the store when the turn
	// starts.
	Images []activities.ImageSource `json:"images,omitempty"`
	State  *TurnState               `json:"state,omitempty"`
	// Code is the turn code the thread started the turn with ([turnCode]).
	Code int `json:"code,omitempty"`
	// RootThread is set in a sub-agent's turns: the thread whose client
	// answers its approvals ([SignalAgentApproval]).
	RootThread string `json:"root_thread,omitempty"`
	// AgentApprovals are the sub-agents' approvals pending when the turn
	// starts (see [ThreadState.AgentApprovals]).
	AgentApprovals []Approval `json:"agent_approvals,omitempty"`
	// RunKind is the kind of run the turn is (runkind.go): "" is main.
	RunKind string `json:"runKind,omitempty"`
	// Prefetched is what the thread did of the turn's first step before
	// starting it (quickturn.go): the turn uses it rather than doing it
	// again.
	Prefetched *Prefetched `json:"prefetched,omitempty"`
	// Taken tells the thread answered this turn's client and took in its
	// result already: the turn records what it answered.
	Taken bool `json:"taken,omitempty"`
}

// Prefetched is a quick turn's first step as its thread ran it: the
// skills found on the host and the first model call's answer (or its
// handoff, which the turn takes over).
type Prefetched struct {
	Skills *activities.SkillsOutput `json:"skills,omitempty"`
	Model  *activities.ModelOutput  `json:"model,omitempty"`
}

// TurnState is everything a running turn carries across continue-as-new.
type TurnState struct {
	Step int `json:"step"`
	// Started are the host-local records of commands this turn ran as
	// local activities, until they are forgotten (see [turn.execHere]).
	Started []StartedCommand `json:"started,omitempty"`
	// Carried is the thread's, as this turn changes it: its Unsent went
	// into Pending when the turn started, and its SessionApprovals gain
	// those decided in this turn.
	Carried
	Pending []harness.Entry `json:"pending,omitempty"`
	Events  []Event         `json:"events,omitempty"`
	LastSeq int             `json:"last_seq"`
	Usage   harness.Usage   `json:"usage"`
	Final   string          `json:"final,omitempty"`
	Runs    int             `json:"runs"`
	// Deadline is when the turn timeout fires; kept across continue-as-new.
	Deadline time.Time `json:"deadline,omitempty"`
	// Approvals are the pending approvals (front ends query them).
	Approvals []Approval `json:"approvals,omitempty"`
	// AgentApprovals are the sub-agents' pending approvals relayed into
	// this (root) turn; the approvals query lists them after its own.
	AgentApprovals []Approval `json:"agent_approvals,omitempty"`
	// CompactError is set when compacting failed in this turn; it is not
	// tried again in the same turn.
	CompactError string `json:"compact_error,omitempty"`
	// External tools offered in this turn (see [turn.prepareTools]).
	External []harness.ExternalTool `json:"external,omitempty"`
	// Skills are the enabled skills of this turn, listed in the system
	// prompt (see [turn.prepareSkills]).
	Skills []skills.Skill `json:"skills,omitempty"`
	// SkillServers are the MCP servers those skills need, merged: the MCP
	// client adds them to the thread's configured servers for this turn.
	SkillServers []skills.MCPDependency `json:"skill_servers,omitempty"`
	// DynamicCalls are the dynamic tool calls waiting for the front end's
	// answer (front ends query them).
	DynamicCalls []DynamicCall `json:"dynamic_calls,omitempty"`
	// Steers is input steered into the turn ([UpdateSteer]) that the model
	// has not read yet.
	Steers []string `json:"steers,omitempty"`
	// Notices are sub-agents' end-of-turn notices ([SignalAgentNotice])
	// the model has not read yet.
	Notices []string `json:"notices,omitempty"`
	// MCPServers are the MCP servers whose tools this turn offers (the
	// thread's and any joined for the turn), as listed.
	MCPServers []mcpclient.Server `json:"mcp_servers,omitempty"`
	// DocSources are the paths of this turn's instructions files.
	DocSources []string `json:"doc_sources,omitempty"`
	// ApprovalWaitMs is the time the turn's approvals waited for a
	// person (a goal's clock does not count it).
	ApprovalWaitMs int64 `json:"approval_wait_ms,omitempty"`
}

// maxKeptEvents bounds the event log carried across continue-as-new.
const maxKeptEvents = 500

// maxKeptEventBytes bounds the size of the carried event log.
const maxKeptEventBytes = 256 << 10

// maxKeptTurns bounds the turn results a thread keeps in its state.
const maxKeptTurns = 200
