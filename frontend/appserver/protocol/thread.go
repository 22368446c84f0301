package protocol

import "encoding/json"

// Thread is the protocol's Thread.
type Thread struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	// ProjectID: Since V0171, required (null: this server assigns no
	// projects).
	ProjectID      *string `json:"projectId"`
	ForkedFromID   *string `json:"forkedFromId"`
	ParentThreadID *string `json:"parentThreadId"`
	Preview        string  `json:"preview"`
	Ephemeral      bool    `json:"ephemeral"`
	ModelProvider  string  `json:"modelProvider"`
	// Model and ReasoningEffort: since V0171, what the thread runs with
	// (null when unknown).
	Model           *string      `json:"model,omitempty"`
	ReasoningEffort *string      `json:"reasoningEffort,omitempty"`
	CreatedAt       int64        `json:"createdAt"`
	UpdatedAt       int64        `json:"updatedAt"`
	Status          ThreadStatus `json:"status"`
	Path            *string      `json:"path"`
	Cwd             string       `json:"cwd"`
	CLIVersion      string       `json:"cliVersion"`
	// Source is "appServer", or for a sub-agent its SubAgentSource.
	Source        SessionSource `json:"source"`
	ThreadSource  *string       `json:"threadSource"`
	AgentNickname *string       `json:"agentNickname"`
	AgentRole     *string       `json:"agentRole"`
	GitInfo       Null          `json:"gitInfo"`
	Name          *string       `json:"name"`
	Turns         []Turn        `json:"turns"`
}

// SessionSource is where a thread came from: this app server, or (with
// SubAgent set) a parent thread that spawned it.
type SessionSource struct {
	SubAgent *ThreadSpawn
}

// ThreadSpawn is SubAgentSource's thread_spawn (snake_case, as Codex
// serializes it).
type ThreadSpawn struct {
	ParentThreadID string  `json:"parent_thread_id"`
	Depth          int     `json:"depth"`
	AgentNickname  *string `json:"agent_nickname"`
	AgentRole      *string `json:"agent_role"`
	AgentPath      *string `json:"agent_path"`
}

// MarshalJSON implements json.Marshaler.
func (s SessionSource) MarshalJSON() ([]byte, error) {
	if s.SubAgent == nil {
		return json.Marshal("appServer")
	}
	type spawn struct {
		ThreadSpawn *ThreadSpawn `json:"thread_spawn"`
	}
	return json.Marshal(struct {
		SubAgent spawn `json:"subAgent"`
	}{spawn{s.SubAgent}})
}

// ThreadStatus is the protocol's tagged ThreadStatus.
type ThreadStatus struct {
	Type        string    `json:"type"`
	ActiveFlags *[]string `json:"activeFlags,omitempty"`
}

// The thread statuses.
var (
	StatusIdle        = ThreadStatus{Type: "idle"}
	StatusNotLoaded   = ThreadStatus{Type: "notLoaded"}
	StatusSystemError = ThreadStatus{Type: "systemError"}
)

// StatusActive is the status of a thread whose turn runs.
func StatusActive() ThreadStatus { return ThreadStatus{Type: "active", ActiveFlags: &[]string{}} }

// Turn is the protocol's Turn.
type Turn struct {
	ID string `json:"id"`
	// Items are the turn's items when ItemsView is "full"; empty when
	// it is "notLoaded".
	Items       []ThreadItem `json:"items"`
	ItemsView   string       `json:"itemsView"`
	Status      string       `json:"status"`
	Error       *TurnError   `json:"error"`
	StartedAt   *int64       `json:"startedAt"`
	CompletedAt *int64       `json:"completedAt"`
	DurationMs  *int64       `json:"durationMs"`
}

// Turn statuses and item views.
const (
	TurnStatusInProgress  = "inProgress"
	TurnStatusCompleted   = "completed"
	TurnStatusInterrupted = "interrupted"
	TurnStatusFailed      = "failed"

	ItemsFull      = "full"
	ItemsNotLoaded = "notLoaded"
	// ItemsSummary: items holds only what a client shows of the turn
	// once it ended (its final answer).
	ItemsSummary = "summary"
)

// TurnError is the error of a failed turn (and of the error
// notification).
type TurnError struct {
	Message           string         `json:"message"`
	CodexErrorInfo    CodexErrorInfo `json:"codexErrorInfo"`
	AdditionalDetails *string        `json:"additionalDetails"`
}

// CodexErrorInfo says what kind of failure an error was: "other", or
// for a failed request httpConnectionFailed / responseStreamDisconnected
// with the HTTP status (null when the provider gave none).
type CodexErrorInfo struct {
	Kind           string // "" is "other"
	HTTPStatusCode *int
}

// Kinds of CodexErrorInfo.
const (
	ErrorOther                      = "other"
	ErrorHTTPConnectionFailed       = "httpConnectionFailed"
	ErrorResponseStreamDisconnected = "responseStreamDisconnected"
)

// MarshalJSON implements json.Marshaler.
func (e CodexErrorInfo) MarshalJSON() ([]byte, error) {
	if e.Kind == "" || e.Kind == ErrorOther {
		return json.Marshal(ErrorOther)
	}
	type status struct {
		HTTPStatusCode *int `json:"httpStatusCode"`
	}
	return json.Marshal(map[string]status{e.Kind: {e.HTTPStatusCode}})
}

// TokenUsage is the protocol's ThreadTokenUsage.
type TokenUsage struct {
	Total              TokenUsageBreakdown `json:"total"`
	Last               TokenUsageBreakdown `json:"last"`
	ModelContextWindow *int64              `json:"modelContextWindow"`
}

// TokenUsageBreakdown counts one turn's or one thread's tokens.
type TokenUsageBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

// SandboxPolicy is the protocol's tagged SandboxPolicy.
type SandboxPolicy struct {
	Type                string    `json:"type"`
	WritableRoots       *[]string `json:"writableRoots,omitempty"`
	NetworkAccess       *bool     `json:"networkAccess,omitempty"`
	ExcludeTmpdirEnvVar *bool     `json:"excludeTmpdirEnvVar,omitempty"`
	ExcludeSlashTmp     *bool     `json:"excludeSlashTmp,omitempty"`
}

// DangerFullAccess is the policy of no sandbox.
func DangerFullAccess() SandboxPolicy { return SandboxPolicy{Type: "dangerFullAccess"} }

// ReadOnly is the read-only sandbox, without network.
func ReadOnly() SandboxPolicy {
	no := false
	return SandboxPolicy{Type: "readOnly", NetworkAccess: &no}
}

// WorkspaceWrite is the sandbox that may write in roots, without
// network.
func WorkspaceWrite(roots []string) SandboxPolicy {
	no := false
	if roots == nil {
		roots = []string{}
	}
	return SandboxPolicy{Type: "workspaceWrite", WritableRoots: &roots, NetworkAccess: &no,
		ExcludeTmpdirEnvVar: &no, ExcludeSlashTmp: &no}
}
