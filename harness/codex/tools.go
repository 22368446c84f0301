package codex

import "github.com/interpreter-dev/interpreter/harness"

// Tools implements [harness.Harness]: the current Codex tool set, or the
// older one with shell.
func (h Harness) Tools() []harness.ToolSpec {
	if h.Shell {
		return []harness.ToolSpec{shellTool, patchTool, planTool, viewImageTool}
	}
	return []harness.ToolSpec{execCommandTool, writeStdinTool, patchTool, planTool, viewImageTool}
}

var shellTool = harness.ToolSpec{
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
}

var patchTool = harness.ToolSpec{
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
}

var planTool = harness.ToolSpec{
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
}

var viewImageTool = harness.ToolSpec{
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
}
