package mcpserver

import (
	"encoding/json"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The Codex event messages this server sends, as Go types: the `msg` of a
// codex/event notification. Types and field names follow Codex's protocol
// (snake_case), so clients written for Codex read them
// (testdata/codex140_collab.jsonl holds the collab messages of Codex
// 0.140's own mcp-server).
//
// A message is a [msg], written by [wireEvent] with its "type" and its
// keys in sorted order, as the messages were always written. Nested
// objects keep their keys sorted by declaring their fields in that order.

// msg is one Codex event message; eventType is its "type".
type msg interface{ eventType() string }

// wireEvent is a msg as a codex/event notification's "msg" carries it.
type wireEvent struct{ msg }

// MarshalJSON writes the event with its "type", its keys sorted.
func (w wireEvent) MarshalJSON() ([]byte, error) {
	body, err := json.Marshal(w.msg)
	if err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		return nil, err
	}
	keys["type"], _ = json.Marshal(w.eventType())
	return json.Marshal(keys)
}

// sessionConfiguredEvent is the first message of a codex call.
type sessionConfiguredEvent struct {
	SessionID         string        `json:"session_id"`
	ThreadID          string        `json:"thread_id"`
	Model             string        `json:"model"`
	ModelProviderID   string        `json:"model_provider_id"`
	ApprovalPolicy    string        `json:"approval_policy"`
	SandboxPolicy     sandboxPolicy `json:"sandbox_policy"`
	Cwd               string        `json:"cwd"`
	HistoryLogID      int64         `json:"history_log_id"`
	HistoryEntryCount int           `json:"history_entry_count"`
}

type sandboxPolicy struct {
	Type string `json:"type"`
}

type taskStartedEvent struct {
	TurnID             string `json:"turn_id"`
	ModelContextWindow *int64 `json:"model_context_window"`
}

type execCommandBeginEvent struct {
	CallID    string            `json:"call_id"`
	Command   []string          `json:"command"`
	Cwd       string            `json:"cwd"`
	ParsedCmd []json.RawMessage `json:"parsed_cmd"`
}

type execCommandEndEvent struct {
	CallID           string   `json:"call_id"`
	Command          []string `json:"command"`
	Cwd              string   `json:"cwd"`
	ExitCode         int      `json:"exit_code"`
	Stdout           string   `json:"stdout"`
	Stderr           string   `json:"stderr"`
	AggregatedOutput string   `json:"aggregated_output"`
	FormattedOutput  string   `json:"formatted_output"`
	Duration         duration `json:"duration"`
	Status           string   `json:"status"`
}

// duration is a Rust Duration as serde writes it.
type duration struct {
	Nanos int64 `json:"nanos"`
	Secs  int64 `json:"secs"`
}

func durationOf(ms int64) duration {
	d := time.Duration(ms) * time.Millisecond
	return duration{Secs: int64(d / time.Second), Nanos: int64(d % time.Second)}
}

type patchApplyBeginEvent struct {
	CallID       string                `json:"call_id"`
	AutoApproved bool                  `json:"auto_approved"`
	Changes      map[string]fileChange `json:"changes"`
}

type patchApplyEndEvent struct {
	CallID  string                `json:"call_id"`
	Success bool                  `json:"success"`
	Stdout  string                `json:"stdout"`
	Stderr  string                `json:"stderr"`
	Changes map[string]fileChange `json:"changes"`
}

// fileChange is one file of a patch: add, delete or update.
type fileChange struct {
	Type string `json:"type"`
}

type mcpToolCallBeginEvent struct {
	CallID     string        `json:"call_id"`
	Invocation mcpInvocation `json:"invocation"`
}

type mcpToolCallEndEvent struct {
	CallID     string        `json:"call_id"`
	Invocation mcpInvocation `json:"invocation"`
	Duration   duration      `json:"duration"`
	Result     mcpResult     `json:"result"`
}

// mcpInvocation is Codex's McpInvocation: the server, its tool and the
// arguments as JSON (null when there are none).
type mcpInvocation struct {
	Arguments any    `json:"arguments"`
	Server    string `json:"server"`
	Tool      string `json:"tool"`
}

// mcpResult serializes as Rust's Result does: {"Ok": CallToolResult} or
// {"Err": message}.
type mcpResult struct {
	Ok  *callToolResult `json:"Ok,omitempty"`
	Err *string         `json:"Err,omitempty"`
}

type callToolResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError"`
}

type textContent struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type agentMessageEvent struct {
	Message string `json:"message"`
}

type agentReasoningEvent struct {
	Text string `json:"text"`
}

type planUpdateEvent struct {
	Plan []planStep `json:"plan"`
}

type planStep struct {
	Status string `json:"status"`
	Step   string `json:"step"`
}

// warningEvent is a tool error the model is told about; the turn goes on.
type warningEvent struct {
	Message string `json:"message"`
}

type tokenCountEvent struct {
	Info       tokenCountInfo `json:"info"`
	RateLimits *struct{}      `json:"rate_limits"`
}

type tokenCountInfo struct {
	LastTokenUsage     tokenUsage `json:"last_token_usage"`
	ModelContextWindow *int64     `json:"model_context_window"`
	TotalTokenUsage    tokenUsage `json:"total_token_usage"`
}

type tokenUsage struct {
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	InputTokens           int64 `json:"input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

func usageOf(res workflows.TurnResult) tokenUsage {
	u := res.Usage
	return tokenUsage{InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens, OutputTokens: u.OutputTokens,
		ReasoningOutputTokens: u.ReasoningTokens, TotalTokens: u.InputTokens + u.OutputTokens}
}

type taskCompleteEvent struct {
	TurnID           string  `json:"turn_id"`
	LastAgentMessage *string `json:"last_agent_message"`
}

type turnAbortedEvent struct {
	TurnID string `json:"turn_id"`
	Reason string `json:"reason"`
}

type errorEvent struct {
	Message string `json:"message"`
}

// streamErrorEvent is sent for each retry of a model call.
type streamErrorEvent struct {
	Message           string          `json:"message"`
	CodexErrorInfo    *codexErrorInfo `json:"codex_error_info"`
	AdditionalDetails string          `json:"additional_details"`
}

type codexErrorInfo struct {
	HTTPConnectionFailed       *httpStatus `json:"http_connection_failed,omitempty"`
	ResponseStreamDisconnected *httpStatus `json:"response_stream_disconnected,omitempty"`
}

type httpStatus struct {
	HTTPStatusCode *int `json:"http_status_code"`
}

func (sessionConfiguredEvent) eventType() string { return "session_configured" }
func (taskStartedEvent) eventType() string       { return "task_started" }
func (execCommandBeginEvent) eventType() string  { return "exec_command_begin" }
func (execCommandEndEvent) eventType() string    { return "exec_command_end" }
func (patchApplyBeginEvent) eventType() string   { return "patch_apply_begin" }
func (patchApplyEndEvent) eventType() string     { return "patch_apply_end" }
func (mcpToolCallBeginEvent) eventType() string  { return "mcp_tool_call_begin" }
func (mcpToolCallEndEvent) eventType() string    { return "mcp_tool_call_end" }
func (agentMessageEvent) eventType() string      { return "agent_message" }
func (agentReasoningEvent) eventType() string    { return "agent_reasoning" }
func (planUpdateEvent) eventType() string        { return "plan_update" }
func (warningEvent) eventType() string           { return "warning" }
func (tokenCountEvent) eventType() string        { return "token_count" }
func (taskCompleteEvent) eventType() string      { return "task_complete" }
func (turnAbortedEvent) eventType() string       { return "turn_aborted" }
func (errorEvent) eventType() string             { return "error" }
func (streamErrorEvent) eventType() string       { return "stream_error" }

// The collab messages of sub-agent tool calls (agents.go). Each begins
// with its call, its sender and when it began or ended.

type collabBegin struct {
	CallID         string `json:"call_id"`
	StartedAtMs    int64  `json:"started_at_ms"`
	SenderThreadID string `json:"sender_thread_id"`
}

type collabEnd struct {
	CallID         string `json:"call_id"`
	CompletedAtMs  int64  `json:"completed_at_ms"`
	SenderThreadID string `json:"sender_thread_id"`
}

// receiverNames are the receiver's nickname and role, when known.
type receiverNames struct {
	ReceiverAgentNickname string `json:"receiver_agent_nickname,omitempty"`
	ReceiverAgentRole     string `json:"receiver_agent_role,omitempty"`
}

type collabSpawnBeginEvent struct {
	collabBegin
	Prompt          string `json:"prompt"`
	Model           string `json:"model"`
	ReasoningEffort string `json:"reasoning_effort"`
}

type collabSpawnEndEvent struct {
	collabEnd
	Prompt           string      `json:"prompt"`
	Model            string      `json:"model"`
	ReasoningEffort  string      `json:"reasoning_effort"`
	NewThreadID      *string     `json:"new_thread_id"`
	Status           agentStatus `json:"status"`
	NewAgentNickname string      `json:"new_agent_nickname,omitempty"`
	NewAgentRole     string      `json:"new_agent_role,omitempty"`
}

type collabInteractionBeginEvent struct {
	collabBegin
	ReceiverThreadID string `json:"receiver_thread_id"`
	Prompt           string `json:"prompt"`
}

type collabInteractionEndEvent struct {
	collabEnd
	ReceiverThreadID string      `json:"receiver_thread_id"`
	Prompt           string      `json:"prompt"`
	Status           agentStatus `json:"status"`
	receiverNames
}

type collabWaitingBeginEvent struct {
	collabBegin
	ReceiverThreadIDs []string   `json:"receiver_thread_ids"`
	ReceiverAgents    []agentRef `json:"receiver_agents,omitempty"`
}

type collabWaitingEndEvent struct {
	collabEnd
	AgentStatuses []agentRef             `json:"agent_statuses,omitempty"`
	Statuses      map[string]agentStatus `json:"statuses"`
}

type collabCloseBeginEvent struct {
	collabBegin
	ReceiverThreadID string `json:"receiver_thread_id"`
}

type collabCloseEndEvent struct {
	collabEnd
	ReceiverThreadID string      `json:"receiver_thread_id"`
	Status           agentStatus `json:"status"`
	receiverNames
}

// Codex 0.140 names the agent only in the resume's end.
type collabResumeBeginEvent struct {
	collabBegin
	ReceiverThreadID string `json:"receiver_thread_id"`
}

type collabResumeEndEvent struct {
	collabEnd
	ReceiverThreadID string      `json:"receiver_thread_id"`
	Status           agentStatus `json:"status"`
	receiverNames
}

// agentRef is Codex's CollabAgentRef, or with a status its
// CollabAgentStatusEntry.
type agentRef struct {
	AgentNickname string       `json:"agent_nickname,omitempty"`
	AgentRole     string       `json:"agent_role,omitempty"`
	Status        *agentStatus `json:"status,omitempty"`
	ThreadID      string       `json:"thread_id"`
}

// agentStatus is an agent's state as Codex's AgentStatus serializes: a
// name, or {"completed": message-or-null} / {"errored": message}.
type agentStatus struct {
	Name    string
	Message *string // completed and errored only
}

// MarshalJSON implements json.Marshaler.
func (s agentStatus) MarshalJSON() ([]byte, error) {
	switch s.Name {
	case workflows.AgentCompleted, workflows.AgentErrored:
		return json.Marshal(map[string]*string{s.Name: s.Message})
	}
	return json.Marshal(s.Name)
}

func (collabSpawnBeginEvent) eventType() string       { return "collab_agent_spawn_begin" }
func (collabSpawnEndEvent) eventType() string         { return "collab_agent_spawn_end" }
func (collabInteractionBeginEvent) eventType() string { return "collab_agent_interaction_begin" }
func (collabInteractionEndEvent) eventType() string   { return "collab_agent_interaction_end" }
func (collabWaitingBeginEvent) eventType() string     { return "collab_waiting_begin" }
func (collabWaitingEndEvent) eventType() string       { return "collab_waiting_end" }
func (collabCloseBeginEvent) eventType() string       { return "collab_close_begin" }
func (collabCloseEndEvent) eventType() string         { return "collab_close_end" }
func (collabResumeBeginEvent) eventType() string      { return "collab_resume_begin" }
func (collabResumeEndEvent) eventType() string        { return "collab_resume_end" }

// approvalElicitation is elicitation/create's params for a pending
// approval: the MCP fields plus the extra ones Codex's clients read
// (patch: changes and reason; exec: command and cwd). Fields in sorted
// key order.
type approvalElicitation struct {
	CodexCallID      string          `json:"codex_call_id"`
	CodexChanges     *string         `json:"codex_changes,omitempty"`
	CodexCommand     *string         `json:"codex_command,omitempty"`
	CodexCwd         *string         `json:"codex_cwd,omitempty"`
	CodexElicitation string          `json:"codex_elicitation"`
	CodexEventID     string          `json:"codex_event_id"`
	CodexReason      *string         `json:"codex_reason,omitempty"`
	Message          string          `json:"message"`
	RequestedSchema  requestedSchema `json:"requestedSchema"`
	ThreadID         string          `json:"threadId"`
}

// requestedSchema is an empty object schema: the answer is the decision.
type requestedSchema struct {
	Properties struct{} `json:"properties"`
	Type       string   `json:"type"`
}

// The live deltas (for live.go and live_reasoning.go, which still write
// them as maps): pieces of an agent message, of reasoning, of a command's
// output (base64).

type agentMessageDeltaEvent struct {
	Delta string `json:"delta"`
}

type agentReasoningDeltaEvent struct {
	Delta string `json:"delta"`
}

type execCommandOutputDeltaEvent struct {
	CallID string `json:"call_id"`
	Stream string `json:"stream"`
	Chunk  string `json:"chunk"`
}

func (agentMessageDeltaEvent) eventType() string      { return "agent_message_delta" }
func (agentReasoningDeltaEvent) eventType() string    { return "agent_reasoning_delta" }
func (execCommandOutputDeltaEvent) eventType() string { return "exec_command_output_delta" }
