package protocol

// Notification is a notification the server sends: its params, which
// know their method.
type Notification interface{ Method() string }

// Notification methods.
const (
	MethodThreadStarted        = "thread/started"
	MethodThreadStatusChanged  = "thread/status/changed"
	MethodThreadNameUpdated    = "thread/name/updated"
	MethodThreadArchived       = "thread/archived"
	MethodThreadUnarchived     = "thread/unarchived"
	MethodThreadTokenUsage     = "thread/tokenUsage/updated"
	MethodTurnStarted          = "turn/started"
	MethodTurnCompleted        = "turn/completed"
	MethodTurnPlanUpdated      = "turn/plan/updated"
	MethodItemStarted          = "item/started"
	MethodItemCompleted        = "item/completed"
	MethodAgentMessageDelta    = "item/agentMessage/delta"
	MethodReasoningPartAdded   = "item/reasoning/summaryPartAdded"
	MethodReasoningTextDelta   = "item/reasoning/summaryTextDelta"
	MethodCommandOutputDelta   = "item/commandExecution/outputDelta"
	MethodTerminalInteraction  = "item/commandExecution/terminalInteraction"
	MethodServerRequestSettled = "serverRequest/resolved"
	MethodCommandExecOutput    = "command/exec/outputDelta"
	MethodError                = "error"
	MethodWarning              = "warning"
)

// ThreadStarted announces a thread (new, forked, or a spawned
// sub-agent's).
type ThreadStarted struct {
	Thread Thread `json:"thread"`
}

// ThreadStatusChanged tells a thread's new status.
type ThreadStatusChanged struct {
	ThreadID string       `json:"threadId"`
	Status   ThreadStatus `json:"status"`
}

// ThreadNameUpdated tells a thread's new name (null: none).
type ThreadNameUpdated struct {
	ThreadID   string  `json:"threadId"`
	ThreadName *string `json:"threadName"`
}

// ThreadArchived and ThreadUnarchived name the thread.
type ThreadArchived struct {
	ThreadID string `json:"threadId"`
}

type ThreadUnarchived struct {
	ThreadID string `json:"threadId"`
}

// ThreadTokenUsageUpdated tells a turn's and its thread's token counts.
type ThreadTokenUsageUpdated struct {
	ThreadID   string     `json:"threadId"`
	TurnID     string     `json:"turnId"`
	TokenUsage TokenUsage `json:"tokenUsage"`
}

// TurnStarted and TurnCompleted carry the turn without its items.
type TurnStarted struct {
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

type TurnCompleted struct {
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

// TurnPlanUpdated is the turn's plan as steps.
type TurnPlanUpdated struct {
	ThreadID    string     `json:"threadId"`
	TurnID      string     `json:"turnId"`
	Explanation *string    `json:"explanation"`
	Plan        []PlanStep `json:"plan"`
}

// PlanStep is one step of a plan: pending, inProgress or completed.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// ItemStarted and ItemCompleted carry an item as it begins and as it
// ends.
type ItemStarted struct {
	ThreadID    string     `json:"threadId"`
	TurnID      string     `json:"turnId"`
	Item        ThreadItem `json:"item"`
	StartedAtMs int64      `json:"startedAtMs"`
}

type ItemCompleted struct {
	ThreadID      string     `json:"threadId"`
	TurnID        string     `json:"turnId"`
	Item          ThreadItem `json:"item"`
	CompletedAtMs int64      `json:"completedAtMs"`
}

// ItemDelta is a piece of an item's text or output
// (item/agentMessage/delta, item/commandExecution/outputDelta).
type ItemDelta struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
	method   string
}

// AgentMessageDelta is a piece of an agent message's text.
func AgentMessageDelta(threadID, turnID, itemID, delta string) ItemDelta {
	return ItemDelta{ThreadID: threadID, TurnID: turnID, ItemID: itemID, Delta: delta, method: MethodAgentMessageDelta}
}

// CommandOutputDelta is a piece of a command's output.
func CommandOutputDelta(threadID, turnID, itemID, delta string) ItemDelta {
	return ItemDelta{ThreadID: threadID, TurnID: turnID, ItemID: itemID, Delta: delta, method: MethodCommandOutputDelta}
}

// ReasoningSummaryPartAdded opens a part of a reasoning summary.
type ReasoningSummaryPartAdded struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	SummaryIndex int    `json:"summaryIndex"`
}

// ReasoningSummaryTextDelta is a piece of a reasoning summary's text.
type ReasoningSummaryTextDelta struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	Delta        string `json:"delta"`
	SummaryIndex int    `json:"summaryIndex"`
}

// TerminalInteraction is input written to a command's exec session.
type TerminalInteraction struct {
	ThreadID  string `json:"threadId"`
	TurnID    string `json:"turnId"`
	ItemID    string `json:"itemId"`
	ProcessID string `json:"processId"`
	Stdin     string `json:"stdin"`
}

// ServerRequestResolved ends a request of the server's that was settled
// without the client's answer.
type ServerRequestResolved struct {
	ThreadID  string `json:"threadId"`
	RequestID int64  `json:"requestId"`
}

// CommandExecOutputDelta is a piece of a streamed command/exec's output.
type CommandExecOutputDelta struct {
	ProcessID   string `json:"processId"`
	Stream      string `json:"stream"`
	DeltaBase64 string `json:"deltaBase64"`
	CapReached  bool   `json:"capReached"`
}

// ErrorNotification is a turn's error: a failure, or with WillRetry a
// model call being retried.
type ErrorNotification struct {
	ThreadID  string     `json:"threadId"`
	TurnID    string     `json:"turnId"`
	Error     *TurnError `json:"error"`
	WillRetry bool       `json:"willRetry"`
}

// Warning is a message for the user that ends nothing (null thread: the
// connection's).
type Warning struct {
	ThreadID *string `json:"threadId"`
	Message  string  `json:"message"`
}

func (ThreadStarted) Method() string             { return MethodThreadStarted }
func (ThreadStatusChanged) Method() string       { return MethodThreadStatusChanged }
func (ThreadNameUpdated) Method() string         { return MethodThreadNameUpdated }
func (ThreadArchived) Method() string            { return MethodThreadArchived }
func (ThreadUnarchived) Method() string          { return MethodThreadUnarchived }
func (ThreadTokenUsageUpdated) Method() string   { return MethodThreadTokenUsage }
func (TurnStarted) Method() string               { return MethodTurnStarted }
func (TurnCompleted) Method() string             { return MethodTurnCompleted }
func (TurnPlanUpdated) Method() string           { return MethodTurnPlanUpdated }
func (ItemStarted) Method() string               { return MethodItemStarted }
func (ItemCompleted) Method() string             { return MethodItemCompleted }
func (d ItemDelta) Method() string               { return d.method }
func (ReasoningSummaryPartAdded) Method() string { return MethodReasoningPartAdded }
func (ReasoningSummaryTextDelta) Method() string { return MethodReasoningTextDelta }
func (TerminalInteraction) Method() string       { return MethodTerminalInteraction }
func (ServerRequestResolved) Method() string     { return MethodServerRequestSettled }
func (CommandExecOutputDelta) Method() string    { return MethodCommandExecOutput }
func (ErrorNotification) Method() string         { return MethodError }
func (Warning) Method() string                   { return MethodWarning }
