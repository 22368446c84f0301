package harness

import (
	"fmt"
	"slices"
	"strings"
)

// Reasoning is how hard a reasoning model thinks and what it tells about
// it: Codex's model_reasoning_effort, model_reasoning_summary and
// model_verbosity keys. The zero value leaves each to the model's default.
type Reasoning struct {
	// Effort: none, minimal, low, medium, high or xhigh ("" = the model's
	// default).
	Effort string `json:"effort,omitempty"`
	// Summary: auto, concise, detailed or none ("" = auto for models that
	// reason).
	Summary string `json:"summary,omitempty"`
	// Verbosity of the answer text (Responses text.verbosity): low, medium
	// or high.
	Verbosity string `json:"verbosity,omitempty"`
	// Supported overrides the model-name guess of whether the model
	// reasons (Codex's model_supports_reasoning_summaries).
	Supported *bool `json:"supported,omitempty"`
}

// Values each setting takes.
var (
	ReasoningEfforts   = []string{"none", "minimal", "low", "medium", "high", "xhigh"}
	ReasoningSummaries = []string{"auto", "concise", "detailed", "none"}
	Verbosities        = []string{"low", "medium", "high"}
)

// Validate reports a setting outside its values, naming the key.
func (r Reasoning) Validate() error {
	for _, c := range []struct {
		key, v string
		ok     []string
	}{
		{"model_reasoning_effort", r.Effort, ReasoningEfforts},
		{"model_reasoning_summary", r.Summary, ReasoningSummaries},
		{"model_verbosity", r.Verbosity, Verbosities},
	} {
		if c.v != "" && !slices.Contains(c.ok, c.v) {
			return fmt.Errorf("%s = %q is not one of %s", c.key, c.v, strings.Join(c.ok, ", "))
		}
	}
	return nil
}

// Reasons reports whether a request to model should ask for reasoning:
// the override when set; otherwise a model whose name says it reasons, or
// one asked for an effort whose name does not say it cannot.
func (r Reasoning) Reasons(model string) bool {
	if r.Supported != nil {
		return *r.Supported
	}
	if ReasoningModel(model) {
		return true
	}
	return r.Effort != "" && r.Effort != "none" && !TextModel(model)
}

// TextModel reports whether a model's name says it does not reason (the
// GPT-4 and GPT-3.5 families, Claude models before extended thinking).
func TextModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"gpt-4", "gpt-3.5", "chatgpt-4o", "claude-3-5", "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-2", "claude-instant"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// ReasoningModel guesses from its name whether a model reasons (OpenAI's
// o-series, GPT-5 and codex models, gpt-oss, and Claude models with
// extended thinking).
func ReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:] // provider/model names of routers
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex", "gpt-oss"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return ThinkingModel(m)
}

// ThinkingModel reports whether a Claude model takes extended thinking.
func ThinkingModel(model string) bool {
	m := strings.ToLower(model)
	for _, f := range []string{"opus-4", "sonnet-4", "haiku-4", "3-7-sonnet"} {
		if strings.Contains(m, f) {
			return true
		}
	}
	return false
}

// CheckModel reports a reasoning setting that model cannot take: an
// effort for a model known not to reason (or said not to). A model whose
// name we do not know is taken at its word and asked.
func (r Reasoning) CheckModel(model string) error {
	if r.Effort == "" || r.Effort == "none" || r.Reasons(model) {
		return nil
	}
	return fmt.Errorf("model %q does not reason, so model_reasoning_effort = %q cannot apply; "+
		"unset it, or set model_supports_reasoning_summaries = true if this model does reason", model, r.Effort)
}

// ThinkingBudget is the Anthropic extended-thinking budget for an effort
// (0: no thinking). An unset effort gets the harness's own default.
func ThinkingBudget(effort string) int64 {
	switch effort {
	case "none":
		return 0
	case "minimal":
		return 1024
	case "low":
		return 4000
	case "medium":
		return 10000
	case "high":
		return 24000
	case "xhigh":
		return 32000
	}
	return 0
}
