// Package workflows owns the durable agent: ThreadWorkflow (one per
// conversation) and TurnWorkflow (one child per turn), the event log that
// front ends read, and the message names and payload types shared with those
// front ends. Workflow code here is deterministic; everything that touches the
// world is an activity.
package workflows

import (
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// Message names. Front ends use these with the Temporal client.
const (
	// UpdateStartTurn starts a turn on a thread; accepted at once, it returns
	// the turn id. Rejected while another turn runs.
	UpdateStartTurn = "turn.start"
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
)

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
)

// Item and turn statuses.
const (
	StatusInProgress  = "in_progress"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusDeclined    = "declined"
	StatusInterrupted = "interrupted"
	// StatusArchived is a thread's status once it is archived.
	StatusArchived = "archived"
)

// ThreadConfig is what a thread runs with; later turns may override parts.
type ThreadConfig struct {
	Model                 string                  `json:"model"`
	Provider              activities.ProviderSpec `json:"provider"`
	Harness               string                  `json:"harness"`
	Cwd                   string                  `json:"cwd"`
	SandboxMode           string                  `json:"sandbox_mode"`
	ApprovalPolicy        string                  `json:"approval_policy"`
	BaseInstructions      string                  `json:"base_instructions,omitempty"`
	DeveloperInstructions string                  `json:"developer_instructions,omitempty"`
	MaxSteps              int                     `json:"max_steps"`
	TurnTimeout           time.Duration           `json:"turn_timeout"`
	// HostQueue is the task queue of the workspace host: tool activities
	// run there, where the files are.
	HostQueue string `json:"host_queue"`
	// Limits, overridable for tests.
	MaxToolOutput    int           `json:"max_tool_output,omitempty"`
	ExecHeartbeat    time.Duration `json:"exec_heartbeat,omitempty"`
	ModelHeartbeat   time.Duration `json:"model_heartbeat,omitempty"`
	HistoryEventsCAN int           `json:"history_events_can,omitempty"`
	// LocalModelCalls runs model calls as local activities: one workflow
	// task per step less, at the price of less detail in the UI. Safe
	// because model calls are retried whole.
	LocalModelCalls bool `json:"local_model_calls,omitempty"`
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
}

// StartTurnRequest is the payload of [UpdateStartTurn].
type StartTurnRequest struct {
	Prompt string `json:"prompt"`
	// Overrides change the thread's config from this turn on.
	Model          string `json:"model,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	SandboxMode    string `json:"sandbox_mode,omitempty"`
	ApprovalPolicy string `json:"approval_policy,omitempty"`
}

// StartTurnResponse answers [UpdateStartTurn].
type StartTurnResponse struct {
	TurnID string `json:"turn_id"`
	Number int    `json:"number"`
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
}

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
}

// WaitRequest is the payload of [UpdateWaitEvents].
type WaitRequest struct {
	After     int   `json:"after"`
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
}

// WaitResponse answers [UpdateWaitEvents].
type WaitResponse struct {
	Last int  `json:"last"`
	Done bool `json:"done"`
}

// TurnResult is what a finished turn leaves in its thread.
type TurnResult struct {
	TurnID       string        `json:"turn_id"`
	Number       int           `json:"number"`
	Status       string        `json:"status"`
	Error        string        `json:"error,omitempty"`
	FinalMessage string        `json:"final_message,omitempty"`
	Usage        harness.Usage `json:"usage"`
	Steps        int           `json:"steps"`
	Transcript   string        `json:"transcript"`
	NextItem     int           `json:"next_item"`
	// Unsent are tool outputs the model has not read yet (the turn ended
	// after the tools ran); the next turn sends them first, so the
	// transcript never holds a tool call without its output.
	Unsent []harness.Entry `json:"unsent,omitempty"`
	// ContextTokens is the size of the conversation at the turn's last
	// model call (its input and output tokens).
	ContextTokens int64 `json:"context_tokens,omitempty"`
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
	// ContextTokens is the conversation's size at its last model call (an
	// estimate right after a compaction).
	ContextTokens int64 `json:"context_tokens,omitempty"`
}

// TurnWorkflowID names the child workflow of a thread's n-th turn.
func TurnWorkflowID(threadID string, n int) string {
	return threadID + "/turn-" + itoa(n)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
