// Package opencode emulates the opencode CLI: lower-case tools (bash, read,
// write, edit, glob, grep, list, todowrite) with camelCase parameters, as
// that CLI defines them. It is provider-agnostic, so it fits every wire API.
package opencode

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "opencode"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness].
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "opencode: bash, read, write, edit, glob, grep, list, todowrite",
		Wires:       []string{harness.WireChat, harness.WireResponses, harness.WireMessages},
	}
}

// Instructions implements [harness.Harness].
func (Harness) Instructions(env harness.Env) string {
	var b strings.Builder
	if env.BaseInstructions != "" {
		b.WriteString(strings.TrimSpace(env.BaseInstructions))
	} else {
		b.WriteString(strings.TrimSpace(basePrompt))
	}
	e := fmt.Sprintf("<env>\n  Working directory: %s\n", env.Cwd)
	if env.Date != "" {
		e += fmt.Sprintf("  Today's date: %s\n", env.Date)
	}
	harness.Section(&b, "Here is some useful information about the environment you are running in:\n"+e+"</env>")
	if len(env.Skills) > 0 {
		harness.Section(&b, "Skills give step-by-step instructions for specific tasks. When a task matches a skill's description, use the read tool on its location first and follow what it says.\n<available_skills>\n"+harness.SkillsList(env.Skills, "  <skill name=%q description=%q location=%q />\n")+"</available_skills>")
	}
	harness.Section(&b, harness.Guidance(env, false))
	if env.DeveloperInstructions != "" {
		harness.Section(&b, env.DeveloperInstructions)
	}
	return b.String() + "\n"
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var tools = []harness.ToolSpec{
	{
		Name: "bash", Core: harness.ToolShell,
		Description: "Runs a bash command in the project directory and returns its output. Default timeout 2 minutes (max 10). Quote paths with spaces; chain dependent commands with &&.",
		Parameters: harness.Object([]string{"command", "description"},
			harness.P("command", harness.Str("The command to run.")),
			harness.P("timeout", harness.Num("Optional timeout in milliseconds.")),
			harness.P("description", harness.Str("What the command does, in 5-10 words.")),
		),
	},
	{
		Name: "read", Core: harness.ToolRead,
		Description: "Reads a file, 2000 lines by default, with line numbers. Use offset and limit for long files.",
		Parameters: harness.Object([]string{"filePath"},
			harness.P("filePath", harness.Str("Absolute path of the file.")),
			harness.P("offset", harness.Num("0-based line number to start at.")),
			harness.P("limit", harness.Num("Number of lines to read (default 2000).")),
		),
	},
	{
		Name: "write", Core: harness.ToolWrite,
		Description: "Writes a file, replacing any existing content. Read an existing file first.",
		Parameters: harness.Object([]string{"content", "filePath"},
			harness.P("content", harness.Str("The content to write.")),
			harness.P("filePath", harness.Str("Absolute path of the file.")),
		),
	},
	{
		Name: "edit", Core: harness.ToolEdit,
		Description: "Replaces oldString with newString in a file. oldString must match exactly and be unique unless replaceAll is set.",
		Parameters: harness.Object([]string{"filePath", "oldString", "newString"},
			harness.P("filePath", harness.Str("Absolute path of the file.")),
			harness.P("oldString", harness.Str("The text to replace.")),
			harness.P("newString", harness.Str("The replacement (different from oldString).")),
			harness.P("replaceAll", harness.Bool("Replace every occurrence (default false).")),
		),
	},
	{
		Name: "glob", Core: harness.ToolGlob,
		Description: "Finds files matching a glob pattern like \"**/*.js\".",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("The glob pattern.")),
			harness.P("path", harness.Str("Directory to search; the working directory when omitted.")),
		),
	},
	{
		Name: "grep", Core: harness.ToolGrep,
		Description: "Searches file contents with a regular expression; returns matching files and lines.",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("The regular expression.")),
			harness.P("path", harness.Str("Directory to search; the working directory by default.")),
			harness.P("include", harness.Str("File pattern to include, e.g. \"*.{ts,tsx}\".")),
		),
	},
	{
		Name: "list", Core: harness.ToolList,
		Description: "Lists files and directories in a path.",
		Parameters: harness.Object(nil,
			harness.P("path", harness.Str("Absolute path of the directory (default: the working directory).")),
			harness.P("ignore", harness.Arr("Glob patterns to leave out.", harness.Str(""))),
		),
	},
	{
		Name: "todowrite", Core: harness.ToolPlan,
		Description: "Replaces the todo list of the session. Use it for tasks with several steps.",
		Parameters: harness.Object([]string{"todos"},
			harness.P("todos", harness.Arr("The updated todo list.", harness.Object([]string{"content", "status", "priority", "id"},
				harness.P("content", harness.Str("Brief description of the task.")),
				harness.P("status", harness.Str("pending, in_progress, completed or cancelled.")),
				harness.P("priority", harness.Str("high, medium or low.")),
				harness.P("id", harness.Str("Unique id of the item.")),
			))),
		),
	},
}

type bashArgs struct {
	Command     string   `json:"command"`
	Timeout     *float64 `json:"timeout"`
	Description string   `json:"description"`
}

type readArgs struct {
	FilePath string   `json:"filePath"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
}

type writeArgs struct {
	Content  string `json:"content"`
	FilePath string `json:"filePath"`
}

type editArgs struct {
	FilePath   string `json:"filePath"`
	OldString  string `json:"oldString"`
	NewString  string `json:"newString"`
	ReplaceAll bool   `json:"replaceAll"`
}

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Include string `json:"include"`
}

type listArgs struct {
	Path   string   `json:"path"`
	Ignore []string `json:"ignore"`
}

type todoArgs struct {
	Todos []struct {
		Content  string `json:"content"`
		Status   string `json:"status"`
		Priority string `json:"priority"`
		ID       string `json:"id"`
	} `json:"todos"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "bash":
		var a bashArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if strings.TrimSpace(a.Command) == "" {
			return harness.Invalid(harness.ToolShell, "command is empty")
		}
		inv := harness.Invocation{Tool: harness.ToolShell, Command: harness.ShellCommand(a.Command), TimeoutMs: 120000}
		if a.Timeout != nil && *a.Timeout > 0 {
			inv.TimeoutMs = int64(min(*a.Timeout, 600000))
		}
		return inv
	case "read":
		var a readArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolRead, Error: err.Error()}
		}
		if a.FilePath == "" {
			return harness.Invalid(harness.ToolRead, "filePath is required")
		}
		inv := harness.Invocation{Tool: harness.ToolRead, Path: a.FilePath}
		if a.Offset != nil {
			inv.Offset = int(*a.Offset) + 1 // opencode counts lines from 0
		}
		if a.Limit != nil {
			inv.Limit = int(*a.Limit)
		}
		return inv
	case "write":
		var a writeArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolWrite, Error: err.Error()}
		}
		if a.FilePath == "" {
			return harness.Invalid(harness.ToolWrite, "filePath is required")
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.FilePath, Content: a.Content}
	case "edit":
		var a editArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
		}
		if a.FilePath == "" {
			return harness.Invalid(harness.ToolEdit, "filePath is required")
		}
		return harness.Invocation{Tool: harness.ToolEdit, Path: a.FilePath, Edits: []harness.Edit{{Old: a.OldString, New: a.NewString, All: a.ReplaceAll}}}
	case "glob":
		var a globArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGlob, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGlob, "pattern is required")
		}
		return harness.Invocation{Tool: harness.ToolGlob, Pattern: a.Pattern, Path: a.Path}
	case "grep":
		var a grepArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGrep, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGrep, "pattern is required")
		}
		return harness.Invocation{Tool: harness.ToolGrep, Pattern: a.Pattern, Path: a.Path, Include: a.Include, OutputMode: harness.GrepContent, Limit: 100}
	case "list":
		var a listArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolList, Error: err.Error()}
		}
		return harness.Invocation{Tool: harness.ToolList, Path: a.Path, Ignore: a.Ignore}
	case "todowrite":
		var a todoArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolPlan, Error: err.Error()}
		}
		inv := harness.Invocation{Tool: harness.ToolPlan, Plan: []harness.PlanStep{}}
		for _, t := range a.Todos {
			st, ok := harness.PlanStatus(t.Status)
			if !ok {
				return harness.Invalid(harness.ToolPlan, "status %q is not pending, in_progress, completed or cancelled", t.Status)
			}
			inv.Plan = append(inv.Plan, harness.PlanStep{Step: t.Content, Status: st})
		}
		return inv
	}
	return harness.Unknown(call.Name, tools)
}
