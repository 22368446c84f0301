package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool names, as Codex's mcp-server names them.
const (
	ToolCodex = "codex"
	ToolReply = "codex-reply"
)

// ApprovalPolicies and SandboxModes are the values the codex tool accepts
// (the same as config.toml's approval_policy and sandbox_mode).
var (
	ApprovalPolicies = []string{"untrusted", "on-failure", "on-request", "never"}
	SandboxModes     = []string{"read-only", "workspace-write", "danger-full-access"}
)

// CodexArgs are the codex tool's arguments. Field names are kebab-case, as
// in Codex; the input schema is generated from this struct.
type CodexArgs struct {
	Prompt                string         `json:"prompt" jsonschema:"The first user prompt of the new session."`
	Model                 string         `json:"model,omitempty" jsonschema:"Model name for this session, overriding config.toml's model."`
	Cwd                   string         `json:"cwd,omitempty" jsonschema:"Working directory of the session. A relative path is resolved against the server's working directory."`
	ApprovalPolicy        string         `json:"approval-policy,omitempty" jsonschema:"When the agent asks before running commands: untrusted, on-failure, on-request or never."`
	Sandbox               string         `json:"sandbox,omitempty" jsonschema:"Sandbox mode for commands: read-only, workspace-write or danger-full-access."`
	Config                map[string]any `json:"config,omitempty" jsonschema:"Settings that override config.toml for this session; keys may be dotted (model_providers.x.base_url) and values are JSON, mapped to TOML types."`
	BaseInstructions      string         `json:"base-instructions,omitempty" jsonschema:"Instructions that replace the harness's default system prompt."`
	DeveloperInstructions string         `json:"developer-instructions,omitempty" jsonschema:"Extra developer instructions added to the conversation."`
	CompactPrompt         string         `json:"compact-prompt,omitempty" jsonschema:"Prompt used when the conversation is compacted."`
}

// ReplyArgs are the codex-reply tool's arguments (camelCase, as in Codex).
type ReplyArgs struct {
	ThreadID       string `json:"threadId,omitempty" jsonschema:"The thread to continue: the threadId a codex call returned."`
	ConversationID string `json:"conversationId,omitempty" jsonschema:"Deprecated alias of threadId."`
	Prompt         string `json:"prompt" jsonschema:"The next user prompt of the thread."`
}

// Result is both tools' structured output.
type Result struct {
	ThreadID string `json:"threadId" jsonschema:"The thread this call ran on; pass it to codex-reply to continue."`
	Content  string `json:"content" jsonschema:"The turn's final agent message, or why the turn did not complete."`
}

// CodexInputSchema is the codex tool's input schema.
func CodexInputSchema() *jsonschema.Schema {
	s := schemaFor[CodexArgs]()
	s.Properties["approval-policy"].Enum = anys(ApprovalPolicies)
	s.Properties["sandbox"].Enum = anys(SandboxModes)
	return s
}

// ReplyInputSchema is the codex-reply tool's input schema.
func ReplyInputSchema() *jsonschema.Schema { return schemaFor[ReplyArgs]() }

// OutputSchema is both tools' output schema.
func OutputSchema() *jsonschema.Schema { return schemaFor[Result]() }

// schemaFor infers a struct's schema: properties from the json tags,
// required for fields without omitempty, additionalProperties false.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return s
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
