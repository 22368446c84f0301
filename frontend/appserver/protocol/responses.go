package protocol

import "encoding/json"

// Results of the methods this server answers.

// Empty is the result of methods that answer with nothing: {}.
type Empty struct{}

// Page is a list result with a cursor to the next page (null: none).
type Page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// HistoryPage is a list result that can also be read backwards
// (thread/turns/list, thread/items/list, thread/list).
type HistoryPage[T any] struct {
	Data            []T     `json:"data"`
	NextCursor      *string `json:"nextCursor"`
	BackwardsCursor *string `json:"backwardsCursor"`
}

// List is a list result without paging.
type List[T any] struct {
	Data []T `json:"data"`
}

// InitializeResponse answers initialize.
type InitializeResponse struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOs     string `json:"platformOs"`
}

// ThreadStartResponse answers thread/start; thread/resume and
// thread/fork answer with the same fields.
type ThreadStartResponse struct {
	Thread             Thread        `json:"thread"`
	Model              string        `json:"model"`
	ModelProvider      string        `json:"modelProvider"`
	ServiceTier        *string       `json:"serviceTier"`
	Cwd                string        `json:"cwd"`
	InstructionSources []string      `json:"instructionSources"`
	ApprovalPolicy     string        `json:"approvalPolicy"`
	ApprovalsReviewer  string        `json:"approvalsReviewer"`
	Sandbox            SandboxPolicy `json:"sandbox"`
	ReasoningEffort    *string       `json:"reasoningEffort"`

	// ActivePermissionProfile (0.171 experimental) is the built-in
	// permission profile of the sandbox (config.go).
	ActivePermissionProfile *ActivePermissionProfile `json:"activePermissionProfile,omitempty"`
}

// ThreadResponse answers thread/read and thread/unarchive.
type ThreadResponse struct {
	Thread Thread `json:"thread"`
}

// TurnResponse answers turn/start and turn/steer's running turn.
type TurnResponse struct {
	Turn Turn `json:"turn"`
}

// TurnIDResponse answers turn/steer.
type TurnIDResponse struct {
	TurnID string `json:"turnId"`
}

// TurnItem is one entry of thread/items/list: an item and its turn.
type TurnItem struct {
	TurnID string     `json:"turnId"`
	Item   ThreadItem `json:"item"`
}

// ThreadUnsubscribeResponse says whether the connection followed the
// thread: unsubscribed or notSubscribed.
type ThreadUnsubscribeResponse struct {
	Status string `json:"status"`
}

// GetAccountResponse answers account/read (null account: none needed).
type GetAccountResponse struct {
	Account            *Account `json:"account"`
	RequiresOpenaiAuth bool     `json:"requiresOpenaiAuth"`
}

// Account is how the model provider authenticates.
type Account struct {
	Type string `json:"type"`
}

// ConfigRequirementsReadResponse answers configRequirements/read: no
// managed requirements.
type ConfigRequirementsReadResponse struct {
	Requirements Null `json:"requirements"`
}

// ConfigReadResponse answers config/read. Config is config.toml's
// content, free-form.
type ConfigReadResponse struct {
	Config  any                        `json:"config"`
	Origins map[string]json.RawMessage `json:"origins"`
	// Layers only when includeLayers was asked for.
	Layers *[]json.RawMessage `json:"layers,omitempty"`
}

// McpServerStatus is one configured MCP server (mcpServerStatus/list).
type McpServerStatus struct {
	Name              string                     `json:"name"`
	AuthStatus        string                     `json:"authStatus"`
	Tools             map[string]json.RawMessage `json:"tools"`
	Resources         []json.RawMessage          `json:"resources"`
	ResourceTemplates []json.RawMessage          `json:"resourceTemplates"`
	// RuntimeStatus: Since V0171; "disabled", or null (unknown).
	RuntimeStatus *string `json:"runtimeStatus"`
}

// PluginInstalledResponse answers plugin/installed: no plugins.
type PluginInstalledResponse struct {
	Marketplaces          []json.RawMessage `json:"marketplaces"`
	MarketplaceLoadErrors []json.RawMessage `json:"marketplaceLoadErrors"`
}

// SkillsListEntry is the skills of one cwd (skills/list).
type SkillsListEntry struct {
	Cwd    string           `json:"cwd"`
	Skills []SkillMetadata  `json:"skills"`
	Errors []SkillErrorInfo `json:"errors"`
}

// SkillMetadata is one skill.
type SkillMetadata struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Scope       string `json:"scope"`
	Enabled     bool   `json:"enabled"`
}

// SkillErrorInfo is a skill that was skipped, and why.
type SkillErrorInfo struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// BedrockGovCloudResponse answers
// account/bedrock/checkGovCloudRequirements (experimental).
type BedrockGovCloudResponse struct {
	IsGovCloud bool `json:"isGovCloud"`
	ShouldWarn bool `json:"shouldWarn"`
}

// ThreadGoalGetResponse answers thread/goal/get: no goal.
type ThreadGoalGetResponse struct {
	Goal Null `json:"goal"`
}

// CollaborationModeMask is one mode of collaborationMode/list
// (experimental; snake_case reasoning_effort, as Codex writes it).
type CollaborationModeMask struct {
	Name            string  `json:"name"`
	Mode            string  `json:"mode"`
	Model           *string `json:"model"`
	ReasoningEffort *string `json:"reasoning_effort"`
}

// Model is one entry of model/list.
type Model struct {
	ID                        string                  `json:"id"`
	Model                     string                  `json:"model"`
	DisplayName               string                  `json:"displayName"`
	Description               string                  `json:"description"`
	Hidden                    bool                    `json:"hidden"`
	IsDefault                 bool                    `json:"isDefault"`
	DefaultReasoningEffort    string                  `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []ReasoningEffortOption `json:"supportedReasoningEfforts"`
	InputModalities           []string                `json:"inputModalities"`
	Upgrade                   *string                 `json:"upgrade"`
	UpgradeInfo               Null                    `json:"upgradeInfo"`
	AvailabilityNux           Null                    `json:"availabilityNux"`
}

// ReasoningEffortOption is one effort a model takes.
type ReasoningEffortOption struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

// CommandExecResponse answers command/exec once the command exited.
type CommandExecResponse struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// InputErrorData is the data of the error for input over the size
// limits (-32602 with input_error_code input_too_large).
type InputErrorData struct {
	InputErrorCode string `json:"input_error_code"`
	MaxChars       int    `json:"max_chars,omitempty"`
	MaxBytes       int    `json:"max_bytes"`
	ActualChars    *int   `json:"actual_chars,omitempty"`
	ActualBytes    int    `json:"actual_bytes,omitempty"`
}
