// Package kimicli emulates Moonshot's Kimi CLI: its tools (Shell, ReadFile,
// WriteFile, StrReplaceFile, Glob, Grep, SetTodoList) with that CLI's
// parameter shapes, tool results annotated with <system> tags, reasoning
// sent back as reasoning_content, and the harness_guidance block.
package kimicli

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "kimi-cli"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness] for Kimi models.
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:             Name,
		Description:      "Moonshot Kimi CLI: Shell, ReadFile, WriteFile, StrReplaceFile, Glob, Grep, SetTodoList",
		Wires:            []string{harness.WireChat},
		ReasoningContent: true,
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
	var e strings.Builder
	e.WriteString("# Environment\n")
	fmt.Fprintf(&e, "- Working directory: %s\n", env.Cwd)
	fmt.Fprintf(&e, "- Shell: bash (`/bin/bash`)\n")
	if env.Date != "" {
		fmt.Fprintf(&e, "- Current date: %s\n", env.Date)
	}
	if env.SandboxMode != "" {
		fmt.Fprintf(&e, "- Sandbox: %s\n", env.SandboxMode)
	}
	harness.Section(&b, e.String())
	if len(env.Skills) > 0 {
		harness.Section(&b, "# Skills\nRead a skill's SKILL.md with ReadFile before using it.\n\n"+
			harness.SkillsList(env.Skills, "- %s\n  - Description: %s\n  - Path: %s\n"))
	}
	harness.Section(&b, harness.Guidance(env, true))
	if env.DeveloperInstructions != "" {
		harness.Section(&b, "# Additional instructions\n\n"+env.DeveloperInstructions)
	}
	return b.String() + "\n"
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var editSchema = harness.Object([]string{"old", "new"},
	harness.P("old", harness.Str("The text to replace; it may span several lines.")),
	harness.P("new", harness.Str("The replacement text.")),
	harness.P("replace_all", harness.With(harness.Bool("Replace every occurrence instead of the single one."), "default", false)),
)

var tools = []harness.ToolSpec{
	{
		Name: "Shell", Core: harness.ToolShell,
		Description: "Runs a bash (`/bin/bash`) command in a fresh shell started in the working directory and returns its combined stdout and stderr. A failed command's exit code is reported in a <system> tag.\n\n" +
			"Chain related commands with `&&`; quote paths with spaces. Do not start interactive programs or commands that never end; give long commands a timeout.",
		Parameters: harness.Object([]string{"command"},
			harness.P("command", harness.Str("The command to run.")),
			harness.P("timeout", harness.With(harness.Int("Seconds before the command is killed."), "default", 60, "minimum", 1, "maximum", 86400)),
			harness.P("run_in_background", harness.With(harness.Bool("Not available here; leave it false."), "default", false)),
			harness.P("description", harness.With(harness.Str("Short description of a background task."), "default", "")),
		),
	},
	{
		Name: "ReadFile", Core: harness.ToolRead,
		Description: "Reads a text file and returns its lines numbered like `cat -n`, at most 1000 lines per call. Use line_offset and n_lines for parts of large files; a negative line_offset counts from the end. Use Grep to find things instead of reading whole files.",
		Parameters: harness.Object([]string{"path"},
			harness.P("path", harness.Str("Path of the file; absolute outside the working directory.")),
			harness.P("line_offset", harness.With(harness.Int("First line to read (1-based); negative reads from the end."), "default", 1)),
			harness.P("n_lines", harness.With(harness.Int("How many lines to read (at most 1000)."), "default", 1000, "minimum", 1)),
		),
	},
	{
		Name: "Glob", Core: harness.ToolGlob,
		Description: "Finds files whose paths match a glob pattern (`*`, `?`, `**` for any depth, `{a,b}`). Start patterns from a directory (`src/**/*.ts`), not from `**`.",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("The glob pattern.")),
			harness.P("directory", harness.With(map[string]any{"anyOf": []any{harness.Str(""), map[string]any{"type": "null"}},
				"description": "Absolute path of the directory to search; the working directory by default."}, "default", nil)),
			harness.P("include_dirs", harness.With(harness.Bool("Whether directories may be listed too."), "default", true)),
		),
	},
	{
		Name: "Grep", Core: harness.ToolGrep,
		Description: "Searches file contents with a regular expression (ripgrep syntax). Prefer it to running grep in Shell. Lists matching files by default; use output_mode `content` for the lines.",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("Regular expression to look for.")),
			harness.P("path", harness.With(harness.Str("File or directory to search; the working directory by default."), "default", ".")),
			harness.P("glob", harness.With(map[string]any{"anyOf": []any{harness.Str(""), map[string]any{"type": "null"}},
				"description": "Only search files matching this glob, e.g. `*.{ts,tsx}`."}, "default", nil)),
			harness.P("output_mode", harness.With(harness.Str("`content` for matching lines, `files_with_matches` for paths, `count_matches` for counts."), "default", "files_with_matches")),
			harness.P("-B", harness.Int("Lines before each match (content mode).")),
			harness.P("-A", harness.Int("Lines after each match (content mode).")),
			harness.P("-C", harness.Int("Lines around each match (content mode).")),
			harness.P("-n", harness.With(harness.Bool("Line numbers (content mode)."), "default", true)),
			harness.P("-i", harness.With(harness.Bool("Ignore case."), "default", false)),
			harness.P("type", harness.Str("File type, e.g. py, go, ts.")),
			harness.P("head_limit", harness.With(harness.Int("Return at most this many results."), "default", 250, "minimum", 0)),
			harness.P("offset", harness.With(harness.Int("Skip this many results first."), "default", 0, "minimum", 0)),
			harness.P("multiline", harness.With(harness.Bool("Patterns spanning lines (not supported here)."), "default", false)),
			harness.P("include_ignored", harness.With(harness.Bool("Also search ignored files."), "default", false)),
		),
	},
	{
		Name: "WriteFile", Core: harness.ToolWrite,
		Description: "Writes a file, creating it (and its directories) if needed. mode `overwrite` (the default) replaces the file; `append` adds to its end. Split very long content over several calls with append.",
		Parameters: harness.Object([]string{"path", "content"},
			harness.P("path", harness.Str("Path of the file; absolute outside the working directory.")),
			harness.P("content", harness.Str("The text to write.")),
			harness.P("mode", harness.With(harness.Enum("overwrite or append.", "overwrite", "append"), "default", "overwrite")),
		),
	},
	{
		Name: "StrReplaceFile", Core: harness.ToolEdit,
		Description: "Replaces exact strings in a text file: one edit or a list of edits, applied in order, all or none. Prefer it to rewriting the file or to sed.",
		Parameters: harness.Object([]string{"path", "edit"},
			harness.P("path", harness.Str("Path of the file; absolute outside the working directory.")),
			harness.P("edit", map[string]any{"anyOf": []any{editSchema, harness.Arr("", editSchema)},
				"description": "One edit, or a list of edits."}),
		),
	},
	{
		Name: "SetTodoList", Core: harness.ToolPlan,
		Description: "Sets your todo list for a task with several steps; every call passes the whole list. Mark items done as you finish them. Skip it for simple questions and one-step changes, and never update it without real progress in between.",
		Parameters: harness.Object(nil,
			harness.P("todos", harness.With(map[string]any{"anyOf": []any{
				harness.Arr("", harness.Object([]string{"title", "status"},
					harness.P("title", harness.With(harness.Str("What the item is."), "minLength", 1)),
					harness.P("status", harness.Enum("", "pending", "in_progress", "done")),
				)),
				map[string]any{"type": "null"},
			}, "description": "The whole updated list."}, "default", nil)),
		),
	},
}

type shellArgs struct {
	Command     string `json:"command"`
	Timeout     *int   `json:"timeout"`
	Background  bool   `json:"run_in_background"`
	Description string `json:"description"`
}

type readArgs struct {
	Path       string `json:"path"`
	LineOffset int    `json:"line_offset"`
	NLines     int    `json:"n_lines"`
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Mode    string `json:"mode"`
}

type edit struct {
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all"`
}

type replaceArgs struct {
	Path string          `json:"path"`
	Edit json.RawMessage `json:"edit"`
}

type globArgs struct {
	Pattern     string  `json:"pattern"`
	Directory   *string `json:"directory"`
	IncludeDirs *bool   `json:"include_dirs"`
}

type grepArgs struct {
	Pattern        string  `json:"pattern"`
	Path           string  `json:"path"`
	Glob           *string `json:"glob"`
	OutputMode     string  `json:"output_mode"`
	Before         *int    `json:"-B"`
	After          *int    `json:"-A"`
	Context        *int    `json:"-C"`
	LineNumbers    *bool   `json:"-n"`
	IgnoreCase     bool    `json:"-i"`
	Type           *string `json:"type"`
	HeadLimit      *int    `json:"head_limit"`
	Offset         int     `json:"offset"`
	Multiline      bool    `json:"multiline"`
	IncludeIgnored bool    `json:"include_ignored"`
}

type todoArgs struct {
	Todos *[]struct {
		Title  string `json:"title"`
		Status string `json:"status"`
	} `json:"todos"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "Shell":
		var a shellArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if strings.TrimSpace(a.Command) == "" {
			return harness.Invalid(harness.ToolShell, "command is empty")
		}
		if a.Background {
			return harness.Invalid(harness.ToolShell, "run_in_background is not available here; run the command in the foreground with a timeout")
		}
		secs := 60
		if a.Timeout != nil && *a.Timeout > 0 {
			secs = min(*a.Timeout, 86400)
		}
		return harness.Invocation{Tool: harness.ToolShell, Command: harness.ShellCommand(a.Command), TimeoutMs: int64(secs) * 1000}
	case "ReadFile":
		var a readArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolRead, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolRead, "path is required")
		}
		limit := a.NLines
		if limit <= 0 || limit > 1000 {
			limit = 1000
		}
		return harness.Invocation{Tool: harness.ToolRead, Path: a.Path, Offset: a.LineOffset, Limit: limit}
	case "WriteFile":
		var a writeArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolWrite, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolWrite, "path is required")
		}
		if a.Mode != "" && a.Mode != "overwrite" && a.Mode != "append" {
			return harness.Invalid(harness.ToolWrite, "mode %q is not overwrite or append", a.Mode)
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.Path, Content: a.Content, Append: a.Mode == "append"}
	case "StrReplaceFile":
		var a replaceArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolEdit, "path is required")
		}
		var edits []edit
		if trimmed := strings.TrimSpace(string(a.Edit)); strings.HasPrefix(trimmed, "[") {
			if err := harness.DecodeArgs(trimmed, &edits); err != nil {
				return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
			}
		} else {
			var one edit
			if err := harness.DecodeArgs(trimmed, &one); err != nil || trimmed == "" || trimmed == "null" {
				return harness.Invalid(harness.ToolEdit, "edit must be an object {old, new, replace_all} or a list of them")
			}
			edits = []edit{one}
		}
		if len(edits) == 0 {
			return harness.Invalid(harness.ToolEdit, "edit is empty")
		}
		inv := harness.Invocation{Tool: harness.ToolEdit, Path: a.Path}
		for _, e := range edits {
			inv.Edits = append(inv.Edits, harness.Edit{Old: e.Old, New: e.New, All: e.ReplaceAll})
		}
		return inv
	case "Glob":
		var a globArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGlob, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGlob, "pattern is required")
		}
		if strings.HasPrefix(a.Pattern, "**") {
			return harness.Invalid(harness.ToolGlob, "patterns starting with ** search everything; start from a directory, e.g. src/**/*.py")
		}
		inv := harness.Invocation{Tool: harness.ToolGlob, Pattern: a.Pattern}
		if a.Directory != nil {
			inv.Path = *a.Directory
		}
		return inv
	case "Grep":
		var a grepArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGrep, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGrep, "pattern is required")
		}
		inv := harness.Invocation{Tool: harness.ToolGrep, Pattern: a.Pattern, Path: a.Path, IgnoreCase: a.IgnoreCase,
			Offset: a.Offset, Limit: 250, Context: max(deref(a.Context), deref(a.Before), deref(a.After))}
		if a.Path == "." {
			inv.Path = ""
		}
		if a.HeadLimit != nil {
			inv.Limit = *a.HeadLimit
			if inv.Limit == 0 {
				inv.Limit = 1 << 30
			}
		}
		switch a.OutputMode {
		case "", "files_with_matches":
			inv.OutputMode = harness.GrepFiles
		case "content":
			inv.OutputMode = harness.GrepContent
		case "count_matches":
			inv.OutputMode = harness.GrepCount
		default:
			return harness.Invalid(harness.ToolGrep, "output_mode %q is not content, files_with_matches or count_matches", a.OutputMode)
		}
		if a.Glob != nil {
			inv.Include = *a.Glob
		} else if a.Type != nil && *a.Type != "" {
			inv.Include = harness.TypeGlob(*a.Type)
		}
		return inv
	case "SetTodoList":
		var a todoArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolPlan, Error: err.Error()}
		}
		if a.Todos == nil {
			return harness.Invalid(harness.ToolPlan, "reading the list back is not available here; pass todos with the whole list to set it")
		}
		inv := harness.Invocation{Tool: harness.ToolPlan, Plan: []harness.PlanStep{}}
		for _, t := range *a.Todos {
			st, ok := harness.PlanStatus(t.Status)
			if !ok {
				return harness.Invalid(harness.ToolPlan, "status %q is not pending, in_progress or done", t.Status)
			}
			inv.Plan = append(inv.Plan, harness.PlanStep{Step: t.Title, Status: st})
		}
		return inv
	}
	return harness.Unknown(call.Name, tools)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// FormatOutput implements [harness.OutputFormatter]: runtime notes in
// <system> tags, as Kimi models were trained to read them.
func (Harness) FormatOutput(e harness.Entry) string {
	if e.Error {
		return "<system>ERROR: " + harness.ErrorText(e) + "</system>"
	}
	if r, ok := harness.ParseShellOutput(e.Text); ok {
		out := strings.TrimRight(r.Output, "\n")
		note := "<system>Command executed successfully.</system>"
		if r.ExitCode != 0 {
			note = fmt.Sprintf("<system>ERROR: Command failed with exit code: %d.</system>", r.ExitCode)
		}
		if out == "" {
			return note
		}
		return out + "\n" + note
	}
	if strings.TrimSpace(e.Text) == "" {
		return "<system>Tool output is empty.</system>"
	}
	return e.Text
}

// ShapeChat implements [harness.ChatShaper]: Kimi CLI's output budget and
// prompt cache key, and user messages without trailing newlines.
func (Harness) ShapeChat(r harness.Request, p *openai.ChatCompletionNewParams) {
	p.MaxTokens = openai.Int(32000)
	if r.CacheKey != "" {
		p.PromptCacheKey = openai.String(r.CacheKey)
	}
	for i := range p.Messages {
		if u := p.Messages[i].OfUser; u != nil && u.Content.OfString.Valid() {
			u.Content.OfString = openai.String(strings.TrimRight(u.Content.OfString.Value, "\n"))
		}
	}
}
