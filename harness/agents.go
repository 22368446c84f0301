package harness

import (
	"encoding/json"
	"strings"
)

// AgentArgs are the arguments of the sub-agent tools (spawn_agent,
// send_input, wait_agent, close_agent, resume_agent) with Codex's names;
// each tool reads its own.
type AgentArgs struct {
	Message     string      `json:"message,omitempty"`
	Items       []AgentItem `json:"items,omitempty"`
	AgentType   string      `json:"agent_type,omitempty"`
	Model       string      `json:"model,omitempty"`
	Effort      string      `json:"reasoning_effort,omitempty"`
	ServiceTier string      `json:"service_tier,omitempty"`
	ForkContext bool        `json:"fork_context,omitempty"`
	Target      string      `json:"target,omitempty"`
	ID          string      `json:"id,omitempty"`
	Interrupt   bool        `json:"interrupt,omitempty"`
	Targets     []string    `json:"targets,omitempty"`
	TimeoutMs   *float64    `json:"timeout_ms,omitempty"`

	// The foreground tools' ([AgentRun]) own: Claude Code's Task and
	// kimi-cli's Agent.
	Description  string `json:"description,omitempty"`
	Prompt       string `json:"prompt,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
	Resume       string `json:"resume,omitempty"`
	// Timeout bounds the run, in seconds (kimi-cli's timeout).
	Timeout *float64 `json:"timeout,omitempty"`
}

// AgentRun is the operation of a foreground sub-agent tool (its
// [ExternalTool.Tool]): start a sub-agent, or with Resume reopen one, wait
// until its turn ends, close it, and hand its final message back as the
// tool's result. Claude Code's Task and kimi-cli's Agent work so.
const AgentRun = "run_agent"

// AgentRunner is a harness whose CLI has a sub-agent tool of its own; the
// turn offers its tools in place of Codex's five.
type AgentRunner interface {
	// AgentTools are the sub-agent tools in the CLI's shape (Source
	// SourceAgents).
	AgentTools() []ExternalTool
	// AgentRole maps a call's subagent_type onto a role (default,
	// worker or explorer), or says, for the model, why it cannot.
	AgentRole(subagentType string) (role, refusal string)
	// AgentResult is the text the model reads when a run ended with a
	// final message.
	AgentResult(r AgentResult) string
}

// AgentResult is a finished foreground run.
type AgentResult struct {
	AgentID      string
	SubagentType string
	Resumed      bool
	Message      string
}

// AgentItem is one structured input item of spawn_agent or send_input.
type AgentItem struct {
	Type     string `json:"type,omitempty"`
	Text     string `json:"text,omitempty"`
	Path     string `json:"path,omitempty"`
	Name     string `json:"name,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	AudioURL string `json:"audio_url,omitempty"`
}

// decodeAgentArgs reads a sub-agent call's arguments. Unknown fields are
// let through, as Codex lets them.
func decodeAgentArgs(raw string) (*AgentArgs, string) {
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	var a AgentArgs
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return nil, "invalid arguments: " + err.Error()
	}
	return &a, ""
}
