package protocol

import "encoding/json"

// ThreadItem is one item of a turn (the protocol's tagged ThreadItem):
// one of the *Item types of this file. Each marshals with its "type"
// first.
type ThreadItem interface {
	ItemType() string
	ItemID() string
}

// The item types.
const (
	TypeAgentMessage      = "agentMessage"
	TypeReasoning         = "reasoning"
	TypeCommandExecution  = "commandExecution"
	TypeFileChange        = "fileChange"
	TypeMcpToolCall       = "mcpToolCall"
	TypeDynamicToolCall   = "dynamicToolCall"
	TypePlan              = "plan"
	TypeUserMessage       = "userMessage"
	TypeCollabAgentCall   = "collabAgentToolCall"
	TypeContextCompaction = "contextCompaction"
)

// Item statuses: CommandExecutionStatus, PatchApplyStatus,
// McpToolCallStatus, DynamicToolCallStatus and CollabAgentToolCallStatus
// draw on these.
const (
	StatusInProgress  = "inProgress"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusDeclined    = "declined"
	StatusInterrupted = "interrupted"
)

// AgentMessageItem is the model's text.
type AgentMessageItem struct {
	ID             string  `json:"id"`
	Text           string  `json:"text"`
	Phase          *string `json:"phase"`
	MemoryCitation Null    `json:"memoryCitation"`
}

// ReasoningItem is the model's reasoning summary; Content (the raw
// reasoning) stays empty.
type ReasoningItem struct {
	ID      string   `json:"id"`
	Summary []string `json:"summary"`
	Content []string `json:"content"`
}

// CommandExecutionItem is a shell command the model ran.
type CommandExecutionItem struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	// ProcessID is the unified-exec session's id (null: none).
	ProcessID      *string         `json:"processId"`
	Source         string          `json:"source"`
	Status         string          `json:"status"`
	CommandActions []CommandAction `json:"commandActions"`
	// AggregatedOutput, ExitCode and DurationMs are null until the
	// command is done.
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	DurationMs       *int64  `json:"durationMs"`
}

// CommandAction is the protocol's parsed command; this server does not
// parse commands, so every one is "unknown".
type CommandAction struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// UnknownCommand is the one action of an unparsed command.
func UnknownCommand(command string) []CommandAction {
	return []CommandAction{{Type: "unknown", Command: command}}
}

// FileChangeItem is a patch the model applied.
type FileChangeItem struct {
	ID      string             `json:"id"`
	Changes []FileUpdateChange `json:"changes"`
	Status  string             `json:"status"`
}

// FileUpdateChange is one file of a patch.
type FileUpdateChange struct {
	Path string          `json:"path"`
	Kind PatchChangeKind `json:"kind"`
	Diff string          `json:"diff"`
}

// PatchChangeKind is add, delete, or update (which alone carries
// move_path).
type PatchChangeKind struct {
	Type     string
	MovePath *string
}

// MarshalJSON implements json.Marshaler.
func (k PatchChangeKind) MarshalJSON() ([]byte, error) {
	if k.Type != "update" {
		return json.Marshal(struct {
			Type string `json:"type"`
		}{k.Type})
	}
	return json.Marshal(struct {
		Type     string  `json:"type"`
		MovePath *string `json:"move_path"`
	}{k.Type, k.MovePath})
}

// PlanItem is the turn's plan as text.
type PlanItem struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// UserMessageItem is the user's input that began a turn.
type UserMessageItem struct {
	ID       string      `json:"id"`
	ClientID *string     `json:"clientId"`
	Content  []UserInput `json:"content"`
}

// McpToolCallItem is a call of an external MCP server's tool.
type McpToolCallItem struct {
	ID        string `json:"id"`
	Server    string `json:"server"`
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments"` // see [Arguments]
	Status    string `json:"status"`
	// Result or Error once the call is done.
	Result     *McpToolCallResult `json:"result"`
	Error      *McpToolCallError  `json:"error"`
	DurationMs *int64             `json:"durationMs"`
}

// McpToolCallResult is a finished call's content.
type McpToolCallResult struct {
	Content []McpContent `json:"content"`
}

// McpContent is one content block of a tool's result (text only here).
type McpContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// McpToolCallError is a failed call's error.
type McpToolCallError struct {
	Message string `json:"message"`
}

// DynamicToolCallItem is a call of a tool the client declared
// (thread/start dynamicTools).
type DynamicToolCallItem struct {
	ID        string  `json:"id"`
	Tool      string  `json:"tool"`
	Namespace *string `json:"namespace"`
	Arguments any     `json:"arguments"` // see [Arguments]
	Status    string  `json:"status"`
	// ContentItems, Success and DurationMs are null until the client
	// answered.
	ContentItems *[]DynamicContentItem `json:"contentItems"`
	Success      *bool                 `json:"success"`
	DurationMs   *int64                `json:"durationMs"`
}

// DynamicContentItem is one part of a dynamic tool's answer: inputText
// or inputImage.
type DynamicContentItem struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL *string `json:"imageUrl,omitempty"`
}

// InputText is an inputText part.
func InputText(text string) DynamicContentItem {
	return DynamicContentItem{Type: "inputText", Text: &text}
}

// InputImage is an inputImage part.
func InputImage(url string) DynamicContentItem {
	return DynamicContentItem{Type: "inputImage", ImageURL: &url}
}

// CollabAgentToolCallItem is a sub-agent tool call: who called, which
// agents, their states.
type CollabAgentToolCallItem struct {
	ID                string                      `json:"id"`
	Tool              string                      `json:"tool"`
	Status            string                      `json:"status"`
	SenderThreadID    string                      `json:"senderThreadId"`
	ReceiverThreadIDs []string                    `json:"receiverThreadIds"`
	Prompt            *string                     `json:"prompt"`
	Model             *string                     `json:"model"`
	ReasoningEffort   *string                     `json:"reasoningEffort"`
	AgentsStates      map[string]CollabAgentState `json:"agentsStates"`
}

// CollabAgentState is one agent's state.
type CollabAgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// ContextCompactionItem is the one item of a compaction's turn.
type ContextCompactionItem struct {
	ID string `json:"id"`
}

func (i AgentMessageItem) ItemType() string        { return TypeAgentMessage }
func (i ReasoningItem) ItemType() string           { return TypeReasoning }
func (i CommandExecutionItem) ItemType() string    { return TypeCommandExecution }
func (i FileChangeItem) ItemType() string          { return TypeFileChange }
func (i PlanItem) ItemType() string                { return TypePlan }
func (i UserMessageItem) ItemType() string         { return TypeUserMessage }
func (i McpToolCallItem) ItemType() string         { return TypeMcpToolCall }
func (i DynamicToolCallItem) ItemType() string     { return TypeDynamicToolCall }
func (i CollabAgentToolCallItem) ItemType() string { return TypeCollabAgentCall }
func (i ContextCompactionItem) ItemType() string   { return TypeContextCompaction }

func (i AgentMessageItem) ItemID() string        { return i.ID }
func (i ReasoningItem) ItemID() string           { return i.ID }
func (i CommandExecutionItem) ItemID() string    { return i.ID }
func (i FileChangeItem) ItemID() string          { return i.ID }
func (i PlanItem) ItemID() string                { return i.ID }
func (i UserMessageItem) ItemID() string         { return i.ID }
func (i McpToolCallItem) ItemID() string         { return i.ID }
func (i DynamicToolCallItem) ItemID() string     { return i.ID }
func (i CollabAgentToolCallItem) ItemID() string { return i.ID }
func (i ContextCompactionItem) ItemID() string   { return i.ID }

// MarshalJSON implementations: each item with its "type" first. (The
// local types drop the method, so the inner Marshal does not recurse.)

func (i AgentMessageItem) MarshalJSON() ([]byte, error) {
	type plain AgentMessageItem
	return tagged(i.ItemType(), plain(i))
}

func (i ReasoningItem) MarshalJSON() ([]byte, error) {
	type plain ReasoningItem
	return tagged(i.ItemType(), plain(i))
}

func (i CommandExecutionItem) MarshalJSON() ([]byte, error) {
	type plain CommandExecutionItem
	return tagged(i.ItemType(), plain(i))
}

func (i FileChangeItem) MarshalJSON() ([]byte, error) {
	type plain FileChangeItem
	return tagged(i.ItemType(), plain(i))
}

func (i PlanItem) MarshalJSON() ([]byte, error) {
	type plain PlanItem
	return tagged(i.ItemType(), plain(i))
}

func (i UserMessageItem) MarshalJSON() ([]byte, error) {
	type plain UserMessageItem
	return tagged(i.ItemType(), plain(i))
}

func (i McpToolCallItem) MarshalJSON() ([]byte, error) {
	type plain McpToolCallItem
	return tagged(i.ItemType(), plain(i))
}

func (i DynamicToolCallItem) MarshalJSON() ([]byte, error) {
	type plain DynamicToolCallItem
	return tagged(i.ItemType(), plain(i))
}

func (i CollabAgentToolCallItem) MarshalJSON() ([]byte, error) {
	type plain CollabAgentToolCallItem
	return tagged(i.ItemType(), plain(i))
}

func (i ContextCompactionItem) MarshalJSON() ([]byte, error) {
	type plain ContextCompactionItem
	return tagged(i.ItemType(), plain(i))
}

// UserInput is one part of a user message (the protocol's tagged
// UserInput): [TextInput], [ImageInput] or [LocalImageInput].
type UserInput interface{ InputType() string }

// TextInput is text; TextElements (ranges of special text) stay empty.
type TextInput struct {
	Text         string            `json:"text"`
	TextElements []json.RawMessage `json:"text_elements"`
}

// ImageInput is an image by URL (data: URLs included).
type ImageInput struct {
	URL    string  `json:"url"`
	Detail *string `json:"detail"`
}

// LocalImageInput is an image file on the server's machine.
type LocalImageInput struct {
	Path   string  `json:"path"`
	Detail *string `json:"detail"`
}

// Text is a TextInput with no text elements.
func Text(s string) TextInput { return TextInput{Text: s, TextElements: []json.RawMessage{}} }

func (TextInput) InputType() string       { return "text" }
func (ImageInput) InputType() string      { return "image" }
func (LocalImageInput) InputType() string { return "localImage" }

func (i TextInput) MarshalJSON() ([]byte, error) {
	type plain TextInput
	return tagged(i.InputType(), plain(i))
}

func (i ImageInput) MarshalJSON() ([]byte, error) {
	type plain ImageInput
	return tagged(i.InputType(), plain(i))
}

func (i LocalImageInput) MarshalJSON() ([]byte, error) {
	type plain LocalImageInput
	return tagged(i.InputType(), plain(i))
}
