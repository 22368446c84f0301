// Package codex is the native harness: Codex-style instructions and the
// shell / apply_patch / update_plan tools.
package codex

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "codex"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness] for GPT-family models.
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:              Name,
		Description:       "OpenAI Codex CLI: shell (argv), apply_patch, update_plan, view_image",
		Wires:             []string{harness.WireResponses, harness.WireChat},
		ParallelToolCalls: true,
	}
}

// Instructions renders the system prompt: the base (or the caller's
// replacement), the environment, and developer instructions last.
func (Harness) Instructions(env harness.Env) string {
	var b strings.Builder
	if env.BaseInstructions != "" {
		b.WriteString(env.BaseInstructions)
	} else {
		b.WriteString(basePrompt)
	}
	b.WriteString("\n<environment_context>\n")
	fmt.Fprintf(&b, "  <cwd>%s</cwd>\n", env.Cwd)
	if env.ApprovalPolicy != "" {
		fmt.Fprintf(&b, "  <approval_policy>%s</approval_policy>\n", env.ApprovalPolicy)
	}
	if env.SandboxMode != "" {
		fmt.Fprintf(&b, "  <sandbox_mode>%s</sandbox_mode>\n", env.SandboxMode)
	}
	if env.Shell != "" {
		fmt.Fprintf(&b, "  <shell>%s</shell>\n", env.Shell)
	}
	b.WriteString("</environment_context>\n")
	if len(env.Skills) > 0 {
		b.WriteString("\n## Skills\nA skill is a set of instructions in a SKILL.md file. Open the file and follow it when a task matches its description.\n")
		b.WriteString(harness.SkillsList(env.Skills, "- %s: %s (file: %s)\n"))
	}
	if g := harness.Guidance(env, false); g != "" {
		b.WriteString("\n" + g + "\n")
	}
	if env.DeveloperInstructions != "" {
		b.WriteString("\n")
		b.WriteString(env.DeveloperInstructions)
		b.WriteString("\n")
	}
	return b.String()
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec {
	return []harness.ToolSpec{
		{
			Name:        "shell",
			Core:        harness.ToolShell,
			Description: "Runs a command and returns its output and exit code. Use [\"bash\", \"-lc\", \"...\"] for shell syntax.",
			Parameters: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"command":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "The command and its arguments."},
					"workdir":    map[string]any{"type": "string", "description": "Directory to run in; defaults to the session's working directory."},
					"timeout_ms": map[string]any{"type": "number", "description": "Kill the command after this many milliseconds."},
					"with_escalated_permissions": map[string]any{"type": "boolean",
						"description": "Run without the sandbox (for example to write outside the workspace or use the network). A person must approve it; say why in justification."},
					"justification": map[string]any{"type": "string", "description": "One sentence shown to the person asked to approve an escalated command."},
				},
				"required":             []string{"command"},
				"additionalProperties": false,
			},
		},
		{
			Name:        "apply_patch",
			Core:        harness.ToolPatch,
			Description: "Edits files. The input is a patch that starts with `*** Begin Patch` and ends with `*** End Patch`, with `*** Add File: P`, `*** Update File: P` (optional `*** Move to: Q`, then `@@` hunks with space/-/+ prefixed lines) and `*** Delete File: P` sections. Paths are relative to the working directory.",
			Parameters: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"input": map[string]any{"type": "string", "description": "The whole patch."},
				},
				"required":             []string{"input"},
				"additionalProperties": false,
			},
		},
		{
			Name:        "update_plan",
			Core:        harness.ToolPlan,
			Description: "Records the plan for the task: a short list of steps, each pending, in_progress or completed. At most one step is in_progress.",
			Parameters: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"explanation": map[string]any{"type": "string"},
					"plan": map[string]any{
						"type": "array",
						"items": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"step":   map[string]any{"type": "string"},
								"status": map[string]any{"type": "string", "enum": []string{"pending", "in_progress", "completed"}},
							},
							"required":             []string{"step", "status"},
							"additionalProperties": false,
						},
					},
				},
				"required":             []string{"plan"},
				"additionalProperties": false,
			},
		},
		{
			Name:        "view_image",
			Core:        harness.ToolViewImage,
			Description: "Shows you an image file of the workspace (PNG, JPEG, GIF or WebP), for when you need to look at it.",
			Parameters: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"path": map[string]any{"type": "string", "description": "Path of the image file, absolute or relative to the working directory."},
				},
				"required":             []string{"path"},
				"additionalProperties": false,
			},
		},
	}
}

type shellArgs struct {
	Command   []string `json:"command"`
	Workdir   string   `json:"workdir"`
	TimeoutMs int64    `json:"timeout_ms"`
	// Escalation: the model asks to run the command without the sandbox
	// (sandbox_permissions "require_escalated" is the newer spelling).
	Justification      string `json:"justification"`
	SandboxPermissions string `json:"sandbox_permissions"`
	WithEscalatedPerms bool   `json:"with_escalated_permissions"`
}

type patchArgs struct {
	Input string `json:"input"`
	Patch string `json:"patch"`
}

type planArgs struct {
	Explanation string             `json:"explanation"`
	Plan        []harness.PlanStep `json:"plan"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "shell", "container.exec", "local_shell":
		var a shellArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if len(a.Command) == 0 {
			return harness.Invocation{Tool: harness.ToolShell, Error: "invalid arguments: command must be a non-empty array of strings"}
		}
		return harness.Invocation{Tool: harness.ToolShell, Command: a.Command, Workdir: a.Workdir, TimeoutMs: a.TimeoutMs,
			Escalate:      a.WithEscalatedPerms || a.SandboxPermissions == "require_escalated",
			Justification: a.Justification}
	case "apply_patch":
		var a patchArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolPatch, Error: err.Error()}
		}
		p := a.Input
		if p == "" {
			p = a.Patch
		}
		if strings.TrimSpace(p) == "" {
			return harness.Invocation{Tool: harness.ToolPatch, Error: "invalid arguments: input (the patch) is empty"}
		}
		return harness.Invocation{Tool: harness.ToolPatch, Patch: p}
	case "update_plan":
		var a planArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolPlan, Error: err.Error()}
		}
		return harness.Invocation{Tool: harness.ToolPlan, Explanation: a.Explanation, Plan: a.Plan}
	case "view_image":
		var a struct {
			Path string `json:"path"`
		}
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil || a.Path == "" {
			msg := "path is required"
			if err != nil {
				msg = err.Error()
			}
			return harness.Invocation{Tool: harness.ToolViewImage, Error: msg}
		}
		return harness.Invocation{Tool: harness.ToolViewImage, Path: a.Path}
	}
	return harness.Unknown(call.Name, Harness{}.Tools())
}
