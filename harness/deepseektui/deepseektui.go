// Package deepseektui emulates DeepSeek-TUI: its tools (exec_shell,
// read_file, write_file, edit_file, list_dir, grep_files, file_search,
// checklist_write) with that CLI's parameter names, a <turn_meta> block on
// the newest user message, and reasoning_content on every assistant message
// that makes tool calls, as DeepSeek's thinking models require.
package deepseektui

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "deepseek-tui"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness] for DeepSeek models.
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:                 Name,
		Description:          "DeepSeek-TUI: exec_shell, read_file, write_file, edit_file, list_dir, grep_files, file_search, checklist_write",
		Wires:                []string{harness.WireChat},
		ReasoningContent:     true,
		ReasoningPlaceholder: "(reasoning omitted)",
		EmptyToolCallContent: true,
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
	harness.Section(&b, fmt.Sprintf("## Environment\n\n- shell: bash\n- pwd: %s\n- sandbox: %s", env.Cwd, orNone(env.SandboxMode)))
	if len(env.Skills) > 0 {
		harness.Section(&b, "## Skills\n\nWhen a task matches a skill, open its SKILL.md with read_file first and follow it.\n\n"+harness.SkillsList(env.Skills, "- `%s`: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	if env.DeveloperInstructions != "" {
		harness.Section(&b, "## Project instructions\n\n"+env.DeveloperInstructions)
	}
	return b.String() + "\n"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var tools = []harness.ToolSpec{
	{
		Name: "exec_shell", Core: harness.ToolShell,
		Description: "Runs a shell command in the workspace and returns its output and exit code. For bounded commands; give long ones a timeout.",
		Parameters: harness.Object([]string{"command"},
			harness.P("command", harness.Str("The shell command.")),
			harness.P("timeout_ms", harness.Int("Timeout in milliseconds (default 120000, max 600000).")),
			harness.P("background", harness.Bool("Not available here; leave it false.")),
			harness.P("cwd", harness.Str("Working directory for the command.")),
		),
	},
	{
		Name: "read_file", Core: harness.ToolRead,
		Description: "Reads a text file from the workspace, 200 lines at a time unless max_lines says otherwise; continue with start_line.",
		Parameters: harness.Object([]string{"path"},
			harness.P("path", harness.Str("Path of the file, relative to the workspace or absolute.")),
			harness.P("start_line", harness.Int("First line (1-based, default 1).")),
			harness.P("max_lines", harness.Int("Lines to return (default 200, max 500).")),
		),
	},
	{
		Name: "write_file", Core: harness.ToolWrite,
		Description: "Writes a whole file, creating directories as needed.",
		Parameters: harness.Object([]string{"path", "content"},
			harness.P("path", harness.Str("Path of the file.")),
			harness.P("content", harness.Str("The full content.")),
		),
	},
	{
		Name: "edit_file", Core: harness.ToolEdit,
		Description: "Replaces one exact, unambiguous piece of text in a file. search must match exactly, whitespace and newlines included.",
		Parameters: harness.Object([]string{"path", "search", "replace"},
			harness.P("path", harness.Str("Path of the file.")),
			harness.P("search", harness.Str("Exact text to find.")),
			harness.P("replace", harness.Str("Text to put in its place.")),
		),
	},
	{
		Name: "list_dir", Core: harness.ToolList,
		Description: "Lists the entries of a directory in the workspace.",
		Parameters: harness.Object(nil,
			harness.P("path", harness.Str("Relative path (default: .).")),
		),
	},
	{
		Name: "grep_files", Core: harness.ToolGrep,
		Description: "Searches workspace files for a regular expression and returns matching lines with context (2 lines by default).",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("Regular expression.")),
			harness.P("path", harness.Str("Directory or file to search (default: .).")),
			harness.P("include", harness.Arr("Globs of files to include, e.g. [\"*.rs\"].", harness.Str(""))),
			harness.P("exclude", harness.Arr("Globs of files to leave out.", harness.Str(""))),
			harness.P("context_lines", harness.Int("Context lines around each match (default 2).")),
			harness.P("case_insensitive", harness.Bool("Ignore case (default false).")),
			harness.P("max_results", harness.Int("Maximum results (default 100).")),
		),
	},
	{
		Name: "file_search", Core: harness.ToolGlob,
		Description: "Finds files whose name contains the query; narrow it with extensions.",
		Parameters: harness.Object([]string{"query"},
			harness.P("query", harness.Str("File name or part of it.")),
			harness.P("path", harness.Str("Base directory (relative to the workspace).")),
			harness.P("limit", harness.Int("Maximum results (default 20).")),
			harness.P("extensions", harness.Arr("Extensions to keep, e.g. [\"rs\", \"md\"].", harness.Str(""))),
		),
	},
	{
		Name: "checklist_write", Core: harness.ToolPlan,
		Description: "Replaces the checklist of the current task with the given items.",
		Parameters: harness.Object([]string{"todos"},
			harness.P("todos", harness.Arr("The complete list.", harness.Object([]string{"content", "status"},
				harness.P("content", harness.Str("The item.")),
				harness.P("status", harness.Enum("", "pending", "in_progress", "completed")),
			))),
		),
	},
}

type shellArgs struct {
	Command    string `json:"command"`
	TimeoutMs  *int64 `json:"timeout_ms"`
	Background bool   `json:"background"`
	Cwd        string `json:"cwd"`
}

type readArgs struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	MaxLines  int    `json:"max_lines"`
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type editArgs struct {
	Path    string `json:"path"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
	Fuzz    bool   `json:"fuzz"`
}

type listArgs struct {
	Path string `json:"path"`
}

type grepArgs struct {
	Pattern         string   `json:"pattern"`
	Path            string   `json:"path"`
	Include         []string `json:"include"`
	Exclude         []string `json:"exclude"`
	ContextLines    *int     `json:"context_lines"`
	CaseInsensitive bool     `json:"case_insensitive"`
	MaxResults      int      `json:"max_results"`
}

type searchArgs struct {
	Query      string   `json:"query"`
	Path       string   `json:"path"`
	Limit      int      `json:"limit"`
	Extensions []string `json:"extensions"`
	Exclude    []string `json:"exclude"`
}

type checklistArgs struct {
	Todos []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"todos"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "exec_shell":
		var a shellArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if strings.TrimSpace(a.Command) == "" {
			return harness.Invalid(harness.ToolShell, "command is empty")
		}
		if a.Background {
			return harness.Invalid(harness.ToolShell, "background commands are not available here; run it in the foreground with timeout_ms")
		}
		inv := harness.Invocation{Tool: harness.ToolShell, Command: harness.ShellCommand(a.Command), Workdir: a.Cwd, TimeoutMs: 120000}
		if a.TimeoutMs != nil && *a.TimeoutMs > 0 {
			inv.TimeoutMs = min(*a.TimeoutMs, 600000)
		}
		return inv
	case "read_file":
		var a readArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolRead, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolRead, "path is required")
		}
		limit := a.MaxLines
		if limit <= 0 {
			limit = 200
		}
		return harness.Invocation{Tool: harness.ToolRead, Path: a.Path, Offset: max(a.StartLine, 0), Limit: min(limit, 500)}
	case "write_file":
		var a writeArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolWrite, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolWrite, "path is required")
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.Path, Content: a.Content}
	case "edit_file":
		var a editArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolEdit, "path is required")
		}
		return harness.Invocation{Tool: harness.ToolEdit, Path: a.Path, Edits: []harness.Edit{{Old: a.Search, New: a.Replace}}}
	case "list_dir":
		var a listArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolList, Error: err.Error()}
		}
		return harness.Invocation{Tool: harness.ToolList, Path: a.Path}
	case "grep_files":
		var a grepArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGrep, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGrep, "pattern is required")
		}
		inv := harness.Invocation{Tool: harness.ToolGrep, Pattern: a.Pattern, Path: a.Path, IgnoreCase: a.CaseInsensitive,
			OutputMode: harness.GrepContent, Context: 2, Limit: 100}
		if a.ContextLines != nil {
			inv.Context = max(*a.ContextLines, 0)
		}
		if a.MaxResults > 0 {
			inv.Limit = a.MaxResults
		}
		if len(a.Include) > 0 {
			inv.Include = joinGlobs(a.Include)
		}
		return inv
	case "file_search":
		var a searchArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGlob, Error: err.Error()}
		}
		if a.Query == "" {
			return harness.Invalid(harness.ToolGlob, "query is required")
		}
		pattern := "**/*" + a.Query + "*"
		if len(a.Extensions) > 0 {
			pattern += "." + joinGlobs(a.Extensions)
		}
		limit := a.Limit
		if limit <= 0 {
			limit = 20
		}
		return harness.Invocation{Tool: harness.ToolGlob, Pattern: pattern, Path: a.Path, Limit: limit}
	case "checklist_write":
		var a checklistArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolPlan, Error: err.Error()}
		}
		inv := harness.Invocation{Tool: harness.ToolPlan, Plan: []harness.PlanStep{}}
		for _, t := range a.Todos {
			st, ok := harness.PlanStatus(t.Status)
			if !ok {
				return harness.Invalid(harness.ToolPlan, "status %q is not pending, in_progress or completed", t.Status)
			}
			inv.Plan = append(inv.Plan, harness.PlanStep{Step: t.Content, Status: st})
		}
		return inv
	}
	return harness.Unknown(call.Name, tools)
}

// joinGlobs merges alternatives into one brace glob.
func joinGlobs(gs []string) string {
	if len(gs) == 1 {
		return gs[0]
	}
	return "{" + strings.Join(gs, ",") + "}"
}

// ShapeChat implements [harness.ChatShaper]: the newest user message opens
// with a <turn_meta> block (date and workspace), and tool choice is auto.
func (Harness) ShapeChat(r harness.Request, p *openai.ChatCompletionNewParams) {
	if len(p.Tools) > 0 {
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
	}
	for i := len(p.Messages) - 1; i >= 0; i-- {
		u := p.Messages[i].OfUser
		if u == nil || !u.Content.OfString.Valid() {
			continue
		}
		meta := "<turn_meta>\n"
		if r.Env.Date != "" {
			meta += "Current date: " + r.Env.Date + "\n"
		}
		meta += "Workspace: " + r.Env.Cwd + "\n</turn_meta>\n"
		u.Content.OfString = openai.String(meta + u.Content.OfString.Value)
		return
	}
}
