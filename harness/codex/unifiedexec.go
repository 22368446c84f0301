package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

// exec_command and write_stdin have Codex's names, parameters and types;
// the descriptions are ours.

var execCommandTool = harness.ToolSpec{
	Name: "exec_command",
	Core: harness.ToolExecCommand,
	Description: "Runs a shell command line and returns its output. If it is still running when yield_time_ms is up, " +
		"you get a session ID instead of an exit code: the process keeps running, and write_stdin reads more of its output or types into it.",
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"cmd":     map[string]any{"type": "string", "description": "The command line, run by the shell."},
			"workdir": map[string]any{"type": "string", "description": "Directory to run in; defaults to the turn's working directory."},
			"shell":   map[string]any{"type": "string", "description": "Shell to run the command line with; defaults to bash."},
			"login":   map[string]any{"type": "boolean", "description": "Run the shell as a login shell (reads the profile). Defaults to true."},
			"tty": map[string]any{"type": "boolean",
				"description": "Give the command a terminal (needed to type into it with write_stdin later); without it the command gets pipes and no input."},
			"yield_time_ms": map[string]any{"type": "number",
				"description": "How long to wait for output before answering; 10000 ms if omitted, kept between 250 and 30000 ms."},
			"max_output_tokens": map[string]any{"type": "number",
				"description": "Most output to return, in tokens; 10000 if omitted. Longer output is cut in the middle."},
			"sandbox_permissions": map[string]any{"type": "string", "enum": []string{"use_default", "require_escalated"},
				"description": "use_default (omit it) runs inside the sandbox; require_escalated asks a person to run it without the sandbox."},
			"justification": map[string]any{"type": "string",
				"description": "With require_escalated: one sentence shown to the person asked to approve."},
			"prefix_rule": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "With require_escalated: the command prefix to approve for the rest of the session, e.g. [\"npm\", \"install\"]."},
		},
		"required":             []string{"cmd"},
		"additionalProperties": false,
	},
}

var writeStdinTool = harness.ToolSpec{
	Name:        "write_stdin",
	Core:        harness.ToolWriteStdin,
	Description: "Types characters into a running exec_command session and returns the output that came since the last call. Empty chars only waits for output.",
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"session_id": map[string]any{"type": "number", "description": "The session ID exec_command returned."},
			"chars":      map[string]any{"type": "string", "description": "Characters to type (include \\n to press Enter; \\u0003 is Ctrl-C). Empty: just wait for output."},
			"yield_time_ms": map[string]any{"type": "number",
				"description": "How long to wait for output: 250 ms if omitted after typing (at most 30000 ms); an empty poll waits 5000 to 300000 ms."},
			"max_output_tokens": map[string]any{"type": "number",
				"description": "Most output to return, in tokens; 10000 if omitted."},
		},
		"required":             []string{"session_id"},
		"additionalProperties": false,
	},
}

type execCommandArgs struct {
	Cmd                string   `json:"cmd"`
	Workdir            string   `json:"workdir"`
	Shell              string   `json:"shell"`
	Login              *bool    `json:"login"`
	TTY                bool     `json:"tty"`
	YieldTimeMs        *float64 `json:"yield_time_ms"`
	MaxOutputTokens    *float64 `json:"max_output_tokens"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

func decodeExecCommand(call harness.ToolCall) harness.Invocation {
	var a execCommandArgs
	if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
		return harness.Invocation{Tool: harness.ToolExecCommand, Error: err.Error()}
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return harness.Invalid(harness.ToolExecCommand, "cmd is empty")
	}
	switch a.SandboxPermissions {
	case "", "use_default", "require_escalated":
	default:
		return harness.Invalid(harness.ToolExecCommand, "sandbox_permissions must be use_default or require_escalated, not %q", a.SandboxPermissions)
	}
	return harness.Invocation{Tool: harness.ToolExecCommand, Script: a.Cmd, Workdir: a.Workdir, Shell: a.Shell, Login: a.Login,
		TTY: a.TTY, YieldMs: whole(a.YieldTimeMs), MaxTokens: whole(a.MaxOutputTokens),
		Escalate: a.SandboxPermissions == "require_escalated", Justification: a.Justification, PrefixRule: a.PrefixRule}
}

type writeStdinArgs struct {
	SessionID       json.RawMessage `json:"session_id"`
	Chars           string          `json:"chars"`
	YieldTimeMs     *float64        `json:"yield_time_ms"`
	MaxOutputTokens *float64        `json:"max_output_tokens"`
}

func decodeWriteStdin(call harness.ToolCall) harness.Invocation {
	var a writeStdinArgs
	if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
		return harness.Invocation{Tool: harness.ToolWriteStdin, Error: err.Error()}
	}
	id, err := sessionID(a.SessionID)
	if err != nil {
		return harness.Invalid(harness.ToolWriteStdin, "%v", err)
	}
	return harness.Invocation{Tool: harness.ToolWriteStdin, SessionID: id, Chars: a.Chars,
		YieldMs: whole(a.YieldTimeMs), MaxTokens: whole(a.MaxOutputTokens)}
}

// sessionID reads a session id given as a number or, as some models
// write it, a string of digits.
func sessionID(raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("session_id is required")
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, fmt.Errorf("session_id must be a number, not %s", raw)
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%g", &n); err != nil {
			return 0, fmt.Errorf("session_id must be a number, not %q", s)
		}
	}
	if n != float64(int64(n)) || n <= 0 {
		return 0, fmt.Errorf("session_id must be a positive whole number, not %v", n)
	}
	return int64(n), nil
}

// whole keeps a number the model gave (nil: not given), in whole units.
func whole(f *float64) *int64 {
	if f == nil {
		return nil
	}
	n := int64(*f)
	return &n
}
