package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Core tools are what every harness's tools map onto; each is one kind of
// durable tool activity.
const (
	ToolShell = "shell"
	ToolPatch = "apply_patch"
	ToolPlan  = "update_plan"
)

// Env is what a system prompt may mention about the session.
type Env struct {
	Cwd                   string
	Shell                 string
	SandboxMode           string
	ApprovalPolicy        string
	Date                  string
	BaseInstructions      string
	DeveloperInstructions string
}

// ToolSpec is a function tool as offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object.
	Parameters map[string]any
}

// Invocation is a tool call decoded into one of the core tools. A call that
// could not be decoded has Error set: the model is told, nothing runs.
type Invocation struct {
	Tool string `json:"tool"`
	// Shell.
	Command   []string `json:"command,omitempty"`
	Workdir   string   `json:"workdir,omitempty"`
	TimeoutMs int64    `json:"timeout_ms,omitempty"`
	// Escalate: the model asks to run the command without the sandbox,
	// saying why in Justification (needs a person's approval).
	Escalate      bool   `json:"escalate,omitempty"`
	Justification string `json:"justification,omitempty"`
	// Patch.
	Patch string `json:"patch,omitempty"`
	// Plan.
	Explanation string     `json:"explanation,omitempty"`
	Plan        []PlanStep `json:"plan,omitempty"`

	Error string `json:"error,omitempty"`
}

// PlanStep is one line of a plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Harness renders a conversation for a model family and decodes its tool
// calls.
type Harness interface {
	Name() string
	Instructions(env Env) string
	Tools() []ToolSpec
	Decode(call ToolCall) Invocation
}

var registry = map[string]Harness{}

// Register adds a harness; harness packages call it from init.
func Register(h Harness) { registry[h.Name()] = h }

// Lookup finds a harness by name; the error lists the known names.
func Lookup(name string) (Harness, error) {
	if h, ok := registry[name]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("unknown harness %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the registered harnesses, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DecodeArgs unmarshals tool arguments strictly, so a mistyped field is
// reported to the model instead of silently ignored.
func DecodeArgs(raw string, v any) error {
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}
