// Package codex is the native harness: Codex-style instructions and the
// tools of the current Codex (exec_command / write_stdin, apply_patch,
// update_plan, view_image), or, as harness codex-shell, the older shell
// tool in place of the first two.
package codex

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

//go:embed prompt_shell.md
var shellPrompt string

// Name is this harness's name in config and routing; ShellName is the
// variant with Codex's older shell tool (for models tuned on it), also
// chosen by Codex's own switch, `features.unified_exec = false`.
const (
	Name      = "codex"
	ShellName = "codex-shell"
)

func init() {
	harness.Register(Harness{})
	harness.Register(Harness{Shell: true})
}

// Harness implements [harness.Harness] for GPT-family models. Shell
// offers the one-shot shell tool instead of unified exec; either variant
// decodes the other's calls.
type Harness struct{ Shell bool }

// Info implements [harness.Harness].
func (h Harness) Info() harness.Info {
	info := harness.Info{
		Name:              Name,
		Description:       "OpenAI Codex CLI: exec_command / write_stdin sessions, apply_patch, update_plan, view_image",
		Wires:             []string{harness.WireResponses, harness.WireChat},
		ParallelToolCalls: true,
	}
	if h.Shell {
		info.Name = ShellName
		info.Description = "OpenAI Codex CLI, older tool set: shell (argv), apply_patch, update_plan, view_image"
	}
	return info
}

// Instructions renders the system prompt: the base (or the caller's
// replacement), the environment, and developer instructions last.
func (h Harness) Instructions(env harness.Env) string {
	var b strings.Builder
	switch {
	case env.BaseInstructions != "":
		b.WriteString(env.BaseInstructions)
	case h.Shell:
		b.WriteString(shellPrompt)
	default:
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

type shellArgs struct {
	Command   []string `json:"command"`
	Workdir   string   `json:"workdir"`
	TimeoutMs int64    `json:"timeout_ms"`
	// Escalation: the model asks to run the command without the sandbox
	// (sandbox_permissions "require_escalated" is the newer spelling).
	Justification      string   `json:"justification"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	WithEscalatedPerms bool     `json:"with_escalated_permissions"`
	PrefixRule         []string `json:"prefix_rule"`
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
func (h Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "exec_command":
		return decodeExecCommand(call)
	case "write_stdin":
		return decodeWriteStdin(call)
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
			Justification: a.Justification, PrefixRule: a.PrefixRule}
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
	return harness.Unknown(call.Name, h.Tools())
}
