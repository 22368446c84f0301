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
