package protocol

// Requests the server makes of its client, and what it reads back.

// Server request methods.
const (
	MethodCommandApproval    = "item/commandExecution/requestApproval"
	MethodFileChangeApproval = "item/fileChange/requestApproval"
	MethodToolCall           = "item/tool/call"
	MethodRequestUserInput   = "item/tool/requestUserInput"
)

// CommandExecutionRequestApprovalParams asks whether a command may run.
type CommandExecutionRequestApprovalParams struct {
	ThreadID       string          `json:"threadId"`
	TurnID         string          `json:"turnId"`
	ItemID         string          `json:"itemId"`
	StartedAtMs    int64           `json:"startedAtMs"`
	Reason         *string         `json:"reason"`
	ApprovalID     *string         `json:"approvalId"`
	Command        string          `json:"command"`
	Cwd            *string         `json:"cwd"`
	CommandActions []CommandAction `json:"commandActions"`
}

// FileChangeRequestApprovalParams asks whether a patch may be applied.
type FileChangeRequestApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	StartedAtMs int64   `json:"startedAtMs"`
	Reason      *string `json:"reason"`
	GrantRoot   *string `json:"grantRoot"`
}

// DynamicToolCallParams asks the client to run one of its tools.
type DynamicToolCallParams struct {
	ThreadID  string  `json:"threadId"`
	TurnID    string  `json:"turnId"`
	CallID    string  `json:"callId"`
	Tool      string  `json:"tool"`
	Namespace *string `json:"namespace"`
	Arguments any     `json:"arguments"` // see [Arguments]
}

// ToolRequestUserInputParams asks the user questions.
type ToolRequestUserInputParams struct {
	ThreadID         string                     `json:"threadId"`
	TurnID           string                     `json:"turnId"`
	ItemID           string                     `json:"itemId"`
	Questions        []ToolRequestUserInputItem `json:"questions"`
	AutoResolutionMs *int64                     `json:"autoResolutionMs"`
	// IsBlocking: Since V0171, required; the turn waits for the answer.
	IsBlocking bool `json:"isBlocking"`
}

// ToolRequestUserInputItem is one question (null options: free text).
type ToolRequestUserInputItem struct {
	ID       string                       `json:"id"`
	Header   string                       `json:"header"`
	Question string                       `json:"question"`
	IsOther  bool                         `json:"isOther"`
	IsSecret bool                         `json:"isSecret"`
	Options  []ToolRequestUserInputOption `json:"options"`
}

// ToolRequestUserInputOption is one choice of a question.
type ToolRequestUserInputOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}
