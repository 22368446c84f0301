// Package workflows owns the durable agent: ThreadWorkflow (one per
// conversation) and TurnWorkflow (one child per turn), the event log that
// front ends read, and the message names and payload types shared with those
// front ends. Workflow code here is deterministic; everything that touches the
// world is an activity.
package workflows

import (
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// Message names. Front ends use these with the Temporal client.
const (
	// UpdateStartTurn starts a turn on a thread; accepted at once, it returns
	// the turn id. Rejected while another turn runs.
	UpdateStartTurn = "turn.start"
	// SignalStartTurn queues a turn without waiting for an answer: it starts
	// when the running one (if any) ends. Empty prompts are dropped.
	SignalStartTurn = "turn.submit"
	// SignalInterrupt stops the running turn.
	SignalInterrupt = "turn.interrupt"
	// QueryThread returns a [ThreadView].
	QueryThread = "thread.view"
	// QueryEvents returns a page of a turn's event log ([EventsPage]).
	QueryEvents = "turn.events"
	// UpdateWaitEvents blocks until a turn's log grows past a sequence
	// number (or the turn ends, or a timeout passes) and returns the last
	// sequence number; the events themselves are read with QueryEvents, so
	// they are not copied into history again.
	UpdateWaitEvents = "turn.wait"
	// UpdateDecideApproval answers a pending approval of a turn
	// ([ApprovalDecision]); sent to the turn workflow. A decision for an
	// approval that is not pending, or for another thread, is refused by
	// the validator and changes nothing.
	UpdateDecideApproval = "approval.decide"
	// QueryApprovals returns a turn's pending approvals ([]Approval).
	QueryApprovals = "approval.pending"
	// UpdateArchive closes an idle thread: its workflow completes, so it
	// leaves the list of open threads and takes no more turns. Refused
	// while a turn runs or waits to start.
	UpdateArchive = "thread.archive"
	// UpdateCompact compacts an idle thread's context now: the model
	// summarizes the conversation and the transcript becomes the recent
	// user messages plus that summary. Returns a [CompactResponse].
	UpdateCompact = "thread.compact"
)

// Event types, named as `codex exec --json` names them.
const (
	EventTurnStarted   = "turn.started"
	EventItemStarted   = "item.started"
	EventItemUpdated   = "item.updated"
	EventItemCompleted = "item.completed"
	EventTurnCompleted = "turn.completed"
	EventTurnFailed    = "turn.failed"
	// EventApprovalRequested: a tool call waits for a person's decision
	// (the event carries the [Approval] and the item).
	EventApprovalRequested = "approval.requested"
	// EventApprovalResolved: the decision came (or the default applied).
	EventApprovalResolved = "approval.resolved"
	// EventModelRetry: a model call failed in a way worth another try,
	// which comes after a pause (the event carries a [ModelRetry]; Error
	// says what failed). Turns log it.
	EventModelRetry = "model.retry"
	// EventTerminalInteraction: write_stdin typed into a session (the
	// event carries the exec_command item that started it and Stdin).
	EventTerminalInteraction = "terminal.interaction"
)

// Approval decisions.
const (
	DecisionApprove           = "approve"
	DecisionApproveForSession = "approve_for_session"
	DecisionDeny              = "deny"
	DecisionAbort             = "abort"
)

// Decisions lists the valid decisions.
var Decisions = []string{DecisionApprove, DecisionApproveForSession, DecisionDeny, DecisionAbort}

// Item types, as `codex exec --json` names them.
const (
	ItemAgentMessage     = "agent_message"
	ItemReasoning        = "reasoning"
	ItemCommandExecution = "command_execution"
	ItemFileChange       = "file_change"
	ItemTodoList         = "todo_list"
	ItemError            = "error"
	// ItemContextCompaction reports that the conversation was compacted
	// (Text is the summary) or that compacting it failed (Message).
	ItemContextCompaction = "context_compaction"
	// ItemMCPToolCall is a call of an MCP server's tool (Server, Tool,
	// Arguments; Result, or Message when it failed).
	ItemMCPToolCall = "mcp_tool_call"
)

// Item and turn statuses.
const (
	StatusInProgress  = "in_progress"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusDeclined    = "declined"
	StatusInterrupted = "interrupted"
	// StatusAwaitingApproval: the item waits for a person's decision.
	StatusAwaitingApproval = "awaiting_approval"
	// StatusArchived is a thread's status once it is archived.
	StatusArchived = "archived"
)

// ThreadConfig is what a thread runs with; later turns may override parts.
type ThreadConfig struct {
	Model    string                  `json:"model"`
	Provider activities.ProviderSpec `json:"provider"`
	Harness  string                  `json:"harness"`
	// NoHarnessGuidance turns harness_guidance off (it is on by default).
	NoHarnessGuidance     bool   `json:"no_harness_guidance,omitempty"`
	Cwd                   string `json:"cwd"`
	SandboxMode           string `json:"sandbox_mode"`
	ApprovalPolicy        string `json:"approval_policy"`
	BaseInstructions      string `json:"base_instructions,omitempty"`
	DeveloperInstructions string `json:"developer_instructions,omitempty"`
	// Reasoning is the reasoning effort, summary and verbosity asked of
	// the model.
	Reasoning harness.Reasoning `json:"reasoning,omitzero"`
	// ProjectDocMaxBytes bounds the project's instructions files (0: the
	// default, 32 KiB; negative: none are read); ProjectDocFallbacks are
	// names tried where no AGENTS.md is.
	ProjectDocMaxBytes  int      `json:"project_doc_max_bytes,omitempty"`
	ProjectDocFallbacks []string `json:"project_doc_fallback_filenames,omitempty"`
	// ImagesSupported overrides the guess from the model's name of
	// whether it takes pictures (model_supports_images).
	ImagesSupported *bool         `json:"images_supported,omitempty"`
	MaxSteps        int           `json:"max_steps"`
	TurnTimeout     time.Duration `json:"turn_timeout"`
	// HostQueue is the task queue of the workspace host: tool activities
	// run there, where the files are.
	HostQueue string `json:"host_queue"`
	// HostWait is how long a tool call waits for a host queue that no
	// worker polls before the turn fails (0: [DefaultHostWait]).
	HostWait time.Duration `json:"host_wait,omitempty"`
	// DynamicTools are tools a front end declared for the thread
	// (app-server dynamicTools); the front end runs them.
	DynamicTools []harness.ExternalTool `json:"dynamic_tools,omitempty"`
	// MCPServers are the external MCP servers whose tools the thread
	// offers ([mcp_servers]); secret values stay on the workers.
	MCPServers []mcpclient.Server `json:"mcp_servers,omitempty"`
	// WritableRoots are extra directories workspace-write commands may
	// write under ([sandbox_workspace_write] writable_roots), besides Cwd
	// and the temp dirs.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// NetworkAccess lets workspace-write commands use the network
	// ([sandbox_workspace_write] network_access).
	NetworkAccess bool `json:"network_access,omitempty"`
	// EnvPolicy filters the environment commands see
	// ([shell_environment_policy]); nil drops variables that look like
	// secrets.
	EnvPolicy *sandbox.EnvPolicy `json:"env_policy,omitempty"`
	// ApprovalTimeout is how long an approval waits ([approvals] timeout);
	// 0 waits as long as the turn lives. ApprovalDefault applies then
	// (default deny).
	ApprovalTimeout time.Duration `json:"approval_timeout,omitempty"`
	ApprovalDefault string        `json:"approval_default,omitempty"`
	// StallTimeout fails a turn whose event log has not grown for this
	// long (waits for a client's answer do not count); 0 disables.
	StallTimeout time.Duration `json:"stall_timeout,omitempty"`
	// DynamicToolTimeout bounds the wait for a dynamic tool's answer
	// (0: [DefaultDynamicToolTimeout]).
	DynamicToolTimeout time.Duration `json:"dynamic_tool_timeout,omitempty"`
	// NotifyCommand and WebhookURL tell a person that an approval waits
	// ([approvals] notify_command, webhook_url).
	NotifyCommand []string `json:"notify_command,omitempty"`
	WebhookURL    string   `json:"webhook_url,omitempty"`
	// Limits, overridable for tests.
	MaxToolOutput int           `json:"max_tool_output,omitempty"`
	ExecHeartbeat time.Duration `json:"exec_heartbeat,omitempty"`
	// CommandHeartbeat is the heartbeat timeout ([temporal]
	// command_heartbeat; 0: 10 min) of a shell command, and of an MCP
	// call, a unified-exec call and a background terminal's watch in runs
	// with the quiet-tools and quiet-watches markers. What it bounds is
	// how long a call whose machine vanished with all its workers stays
	// running.
	CommandHeartbeat time.Duration `json:"command_heartbeat,omitempty"`
	ModelHeartbeat   time.Duration `json:"model_heartbeat,omitempty"`
	HistoryEventsCAN int           `json:"history_events_can,omitempty"`
	// ModelCalls chooses how model calls run: ModelCallsAuto (""),
	// ModelCallsLocal or ModelCallsActivity.
	ModelCalls string `json:"model_calls,omitempty"`
	// LocalModelCalls is a second spelling of ModelCallsLocal, kept
	// because the baseline's recorded histories and the tests set it.
	LocalModelCalls bool `json:"local_model_calls,omitempty"`
	// Commands chooses how shell commands run: CommandsActivity ("",
	// always a regular activity) or CommandsLocal (first in the workflow
	// task when its worker serves the host).
	Commands string `json:"commands,omitempty"`
	// SearchAttributes is set when the namespace has the thread search
	// attributes registered (the embedded server registers them).
	SearchAttributes bool `json:"search_attributes,omitempty"`
	// ContextWindow is the model's context window in tokens (0: from the
	// table in [ContextWindow]).
	ContextWindow int64 `json:"context_window,omitempty"`
	// AutoCompactTokenLimit compacts the conversation before a model call
	// once the previous call used this many tokens (0: 80% of the window;
	// negative: never).
	AutoCompactTokenLimit int64 `json:"auto_compact_token_limit,omitempty"`
	// CompactPrompt asks the model for the summary ("" is the default).
	CompactPrompt string `json:"compact_prompt,omitempty"`
	// CompactKeepTokens bounds the recent user messages a compacted
	// transcript keeps word for word.
	CompactKeepTokens int `json:"compact_keep_tokens,omitempty"`
	// Memories turns on memory across threads: the thread starts with the
	// consolidated memory in its instructions, and once idle for
	// MemoryIdle its own memory is extracted.
	Memories   bool          `json:"memories,omitempty"`
	MemoryIdle time.Duration `json:"memory_idle,omitempty"`
	// Agents turns the sub-agent tools on and bounds them (nil: off).
	Agents *AgentsConfig `json:"agents,omitempty"`
	// Goals turns goals on and bounds them (nil: off; see goal.go).
	Goals *GoalsConfig `json:"goals,omitempty"`
	// BackgroundTerminals bounds the exec sessions that outlive their
	// turn and says whether their end wakes the thread (nil: a thread
	// from before them, whose sessions are neither watched nor bounded;
	// see bgterm.go).
	BackgroundTerminals *BackgroundTerminalsConfig `json:"background_terminals,omitempty"`
	// StoreRetries is how often a step the transcript store failed is
	// tried again ([store] max_retries; nil: DefaultStoreRetries).
	StoreRetries *int `json:"store_retries,omitempty"`
}

// StartTurnRequest is the payload of [UpdateStartTurn].
type StartTurnRequest struct {
	Prompt string `json:"prompt"`
	// Overrides change the thread's config from this turn on.
	Model          string `json:"model,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	SandboxMode    string `json:"sandbox_mode,omitempty"`
	ApprovalPolicy string `json:"approval_policy,omitempty"`
	// Images are pictures attached to the prompt (exec --image, app-server
	// image and localImage): files on the workspace host or URLs.
	Images []activities.ImageSource `json:"images,omitempty"`
	// Effort and Summary change the reasoning settings (app-server
	// effort, summary).
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Timeouts change the thread's from this turn on; nil keeps them, and
	// a stall timeout <= 0 turns it off.
	Timeouts *Timeouts `json:"timeouts,omitempty"`
	// Mode holds what this turn alone adds to the thread's settings (an
	// app-server collaboration mode); the next turn does not inherit it.
	Mode *TurnMode `json:"mode,omitempty"`
	// RunKind is the kind of run the turn is (runkind.go): "" is main.
	RunKind string `json:"runKind,omitempty"`
	// After names a turn of the thread whose end the client has seen: if
	// the thread still runs it, this turn waits for it rather than being
	// refused (threadafter.go).
	After string `json:"after,omitempty"`
	// WantResult asks the thread to answer with the turn's result when
	// it can tell it at once: a reply the model answers in one step
	// (quickturn.go). The answer then carries it in Result.
	WantResult bool `json:"want_result,omitempty"`
}

// TurnMode is a collaboration mode as one turn takes it: instructions
// after the thread's developer instructions and tools besides the
// thread's dynamic tools, for this turn only.
type TurnMode struct {
	Name         string                 `json:"name"`
	Instructions string                 `json:"instructions,omitempty"`
	Tools        []harness.ExternalTool `json:"tools,omitempty"`
}

// Timeouts overrides a thread's timeouts; nil fields keep theirs.
type Timeouts struct {
	Turn     *time.Duration `json:"turn,omitempty"`
	Stall    *time.Duration `json:"stall,omitempty"`
	Approval *time.Duration `json:"approval,omitempty"`
}

// StartTurnResponse answers [UpdateStartTurn].
type StartTurnResponse struct {
	TurnID string `json:"turn_id"`
	Number int    `json:"number"`
	// Result is the turn's result, with all its events in Tail, when the
	// request asked for it and the thread answered the turn itself
	// (quickturn.go); the turn's workflow then records the same events.
	Result *TurnResult `json:"result,omitempty"`
	// ThreadUsage is the thread's token totals with Result taken in.
	ThreadUsage *harness.Usage `json:"thread_usage,omitempty"`
}

// Item is one entry of a turn as front ends show it.
type Item struct {
	ID               string       `json:"id"`
	Type             string       `json:"type"`
	Text             string       `json:"text,omitempty"`
	Command          string       `json:"command,omitempty"`
	Cwd              string       `json:"cwd,omitempty"`
	AggregatedOutput string       `json:"aggregated_output,omitempty"`
	ExitCode         *int         `json:"exit_code,omitempty"`
	DurationMs       int64        `json:"duration_ms,omitempty"`
	Status           string       `json:"status,omitempty"`
	Changes          []FileChange `json:"changes,omitempty"`
	Items            []TodoItem   `json:"items,omitempty"`
	Message          string       `json:"message,omitempty"`
	// Agent is set on collab_agent_tool_call items (see agents.go).
	Agent *AgentCall `json:"agent,omitempty"`
	// Dynamic is set on dynamic_tool_call items (see dynamic.go).
	Dynamic *DynamicCall `json:"dynamic,omitempty"`
	// MCP tool calls: the server, its tool, the raw JSON arguments and
	// the result text.
	Server    string `json:"server,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Result    string `json:"result,omitempty"`
	// CallID is the model's id of the tool call a command item runs; a
	// running command's live output is heartbeated under it (see
	// [LiveOutput]).
	CallID string `json:"call_id,omitempty"`
	// ProcessID is the unified-exec session id of an exec_command item.
	ProcessID string `json:"process_id,omitempty"`
}

// FileChange is one file of a file_change item.
type FileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

// TodoItem is one line of a todo_list item.
type TodoItem struct {
	Text      string `json:"text"`
	Completed bool   `json:"completed"`
}

// Event is one entry of a turn's event log.
type Event struct {
	Seq    int            `json:"seq"`
	Type   string         `json:"type"`
	TurnID string         `json:"turn_id"`
	Item   *Item          `json:"item,omitempty"`
	Usage  *harness.Usage `json:"usage,omitempty"`
	Error  string         `json:"error,omitempty"`
	// Approval is set on approval.requested and approval.resolved.
	Approval *Approval `json:"approval,omitempty"`
	// Retry is set on model.retry.
	Retry *ModelRetry `json:"retry,omitempty"`
	// Stdin is what write_stdin typed (terminal.interaction; bounded).
	Stdin string `json:"stdin,omitempty"`
	// Goal is set on goal.updated.
	Goal *Goal `json:"goal,omitempty"`
}

// ModelRetry says which attempt of a model call comes next, of how many,
// and after how long.
type ModelRetry struct {
	// Attempt is the attempt about to be made (2 for the first retry),
	// MaxAttempts the last one that may be.
	Attempt     int   `json:"attempt"`
	MaxAttempts int   `json:"max_attempts"`
	DelayMs     int64 `json:"delay_ms"`
	// Kind is RetryRequest (the request failed before the answer began)
	// or RetryStream (the answer broke off or stalled).
	Kind string `json:"kind"`
	// HTTPStatus is the provider's status code, when it answered.
	HTTPStatus int `json:"http_status,omitempty"`
}

// Kinds of [ModelRetry].
const (
	RetryRequest = "request"
	RetryStream  = "stream"
	// RetryStore: the answer came, the transcript store failed to keep it
	// (the answer is kept on the worker; only the write is made again).
	RetryStore = "store"
)

// EventsRequest asks for the events after a sequence number.
type EventsRequest struct {
	After int `json:"after"`
	Limit int `json:"limit,omitempty"`
}

// EventsPage is an answer to [QueryEvents]. First is the oldest sequence
// number still held (older ones were dropped at continue-as-new).
type EventsPage struct {
	Events []Event `json:"events"`
	Last   int     `json:"last"`
	First  int     `json:"first"`
	Done   bool    `json:"done"`
	// Result is the turn's result once it has ended (Done) and the page
	// reaches its last event; the run may not have closed yet.
	Result *TurnResult `json:"result,omitempty"`
}

// WaitRequest is the payload of [UpdateWaitEvents].
type WaitRequest struct {
	After     int   `json:"after"`
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
	// HoldMs, when set, holds an answer that would carry only the events
	// a turn opens with (before its first model answer) for up to that
	// long, for more: a short turn is then answered once, at its end,
	// rather than once at the start and again, with another workflow
	// task, at the end.
	HoldMs int64 `json:"hold_ms,omitempty"`
}

// WaitResponse answers [UpdateWaitEvents].
type WaitResponse struct {
	Last int  `json:"last"`
	Done bool `json:"done"`
	// Events are the log's events after the request's After when they
	// are small (the usual case: a message, a command's start or end);
	// otherwise nil: read them with [QueryEvents].
	Events []Event `json:"events,omitempty"`
	// Result is the turn's result, given with Events when the turn is
	// done (without its unsent tool outputs, which only the thread needs),
	// so the reader need not wait for the run to close to learn it.
	Result *TurnResult `json:"result,omitempty"`
}

// TurnResult is what a finished turn leaves in its thread.
type TurnResult struct {
	// Status, Error and FinalMessage come first so the Result box on the
	// turn's page in the Web UI starts with how the turn ended.
	Status       string        `json:"status"`
	Error        string        `json:"error,omitempty"`
	FinalMessage string        `json:"final_message,omitempty"`
	TurnID       string        `json:"turn_id"`
	Number       int           `json:"number"`
	Usage        harness.Usage `json:"usage"`
	Steps        int           `json:"steps"`
	// Carried is the thread's after this turn.
	Carried
	// Tail are the turn's last events (a few, within a small budget), for
	// a reader that comes after the run closed: reading them from the
	// result costs no replay, which a query of a closed run would. The
	// thread does not keep them.
	Tail []Event `json:"tail,omitempty"`
	// InstructionSources are the instructions files (AGENTS.md...) the
	// turn found.
	InstructionSources []string `json:"instruction_sources,omitempty"`
	// ApprovalWaitMs is the time the turn's approvals waited.
	ApprovalWaitMs int64 `json:"approval_wait_ms,omitempty"`
}

// CompactResponse answers [UpdateCompact].
type CompactResponse struct {
	Summary       string `json:"summary"`
	EntriesBefore int    `json:"entries_before"`
	EntriesAfter  int    `json:"entries_after"`
	TokensBefore  int64  `json:"tokens_before"`
	TokensAfter   int64  `json:"tokens_after"`
}

// ThreadView answers [QueryThread].
type ThreadView struct {
	ThreadID    string        `json:"thread_id"`
	Config      ThreadConfig  `json:"config"`
	Turns       []TurnResult  `json:"turns"`
	RunningTurn string        `json:"running_turn,omitempty"`
	Usage       harness.Usage `json:"usage"`
	Transcript  string        `json:"transcript"`
	// SessionApprovals are what "approve for the session" allowed so far.
	SessionApprovals []SessionApproval `json:"session_approvals,omitempty"`
	// PendingApprovals are filled by [GetThreadWithApprovals] from the
	// running turn ([QueryApprovals]); the thread.view query itself leaves
	// them empty.
	PendingApprovals []Approval `json:"pending_approvals,omitempty"`
	// ContextTokens is the conversation's size at its last model call (an
	// estimate right after a compaction).
	ContextTokens int64 `json:"context_tokens,omitempty"`
	// Name is the thread's name ([UpdateSetName]).
	Name string `json:"name,omitempty"`
	// Parent is set for a sub-agent; Agents are the thread's own (their
	// configs left out).
	Parent *AgentParent `json:"parent,omitempty"`
	Agents []SubAgent   `json:"agents,omitempty"`
	// AgentApprovals are its sub-agents' pending approvals (a root's).
	AgentApprovals []Approval `json:"agent_approvals,omitempty"`
	// TreeAgents are, in a root, the open agents of its sub-agents, which
	// agents.max_threads counts with its own.
	TreeAgents []string `json:"tree_agents,omitempty"`
	// Goal is the thread's goal (nil: none).
	Goal *Goal `json:"goal,omitempty"`
}
