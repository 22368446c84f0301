// Package claudecode emulates the Claude Code CLI: its tool surface (Bash,
// Read, Write, Edit, MultiEdit, Glob, Grep, LS, TodoWrite) with the
// parameter names and shapes that CLI uses, an <env> block in the system
// prompt, tool errors flagged with is_error, prompt caching marks and, for
// models that support it, extended thinking whose blocks go back with their
// signatures.
package claudecode

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "claude-code"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness] for Claude models.
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "Anthropic Claude Code: Bash, Read, Write, Edit, Glob, Grep, TodoWrite, ...",
		Wires:       []string{harness.WireMessages, harness.WireChat},
	}
}

// Instructions implements [harness.Harness].
func (Harness) Instructions(env harness.Env) string {
	var b strings.Builder
	if env.BaseInstructions != "" {
		b.WriteString(strings.TrimRight(env.BaseInstructions, "\n"))
	} else {
		b.WriteString(strings.TrimRight(basePrompt, "\n"))
	}
	b.WriteString("\n\nHere is useful information about the environment you are running in:\n<env>\n")
	fmt.Fprintf(&b, "Working directory: %s\n", env.Cwd)
	if env.Shell != "" {
		fmt.Fprintf(&b, "Shell: %s\n", env.Shell)
	}
	if env.SandboxMode != "" {
		fmt.Fprintf(&b, "Sandbox: %s\n", env.SandboxMode)
	}
	if env.Date != "" {
		fmt.Fprintf(&b, "Today's date: %s\n", env.Date)
	}
	b.WriteString("</env>\n")
	if len(env.Skills) > 0 {
		b.WriteString("\n# Skills\nThese skills are available. When a task matches one, Read its SKILL.md first and follow it.\n")
		for _, s := range env.Skills {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Name, s.Description, s.Path)
		}
	}
	if env.DeveloperInstructions != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(env.DeveloperInstructions, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var todoItem = harness.Strict([]string{"content", "status", "activeForm"},
	harness.P("content", harness.With(harness.Str("What to do, in the imperative."), "minLength", 1)),
	harness.P("status", harness.Enum("", harness.StepPending, harness.StepInProgress, harness.StepCompleted)),
	harness.P("activeForm", harness.With(harness.Str("The same step in the present continuous, shown while it runs."), "minLength", 1)),
)

var editItem = harness.Strict([]string{"old_string", "new_string"},
	harness.P("old_string", harness.Str("Exact text to replace.")),
	harness.P("new_string", harness.Str("Text to put in its place.")),
	harness.P("replace_all", harness.With(harness.Bool("Replace every occurrence instead of exactly one."), "default", false)),
)

var tools = []harness.ToolSpec{
	{
		Name: "Bash", Core: harness.ToolShell,
		Description: "Runs a bash command in a fresh shell started in the working directory and returns its combined output and exit code.\n\n" +
			"- Quote paths that contain spaces.\n- Chain dependent commands with && in one call.\n" +
			"- The default timeout is 2 minutes; pass timeout (milliseconds, at most 600000) for longer work.\n" +
			"- Use Read, Grep, Glob and Edit instead of cat, grep, find and sed.",
		Parameters: harness.Strict([]string{"command"},
			harness.P("command", harness.Str("The command to run.")),
			harness.P("timeout", harness.With(harness.Num("Optional timeout in milliseconds (max 600000)."), "maximum", 600000)),
			harness.P("description", harness.Str("A few words saying what the command does.")),
			harness.P("run_in_background", harness.Bool("Not available in this environment; leave it unset.")),
		),
	},
	{
		Name: "Read", Core: harness.ToolRead,
		Description: "Reads a text file and returns it with line numbers, up to 2000 lines from the start unless offset and limit say otherwise. Lines longer than 2000 characters are cut.",
		Parameters: harness.Strict([]string{"file_path"},
			harness.P("file_path", harness.Str("Absolute path of the file.")),
			harness.P("offset", harness.Num("Line number to start from (1-based). Use for large files.")),
			harness.P("limit", harness.Num("Number of lines to read.")),
		),
	},
	{
		Name: "Write", Core: harness.ToolWrite,
		Description: "Writes a file, replacing it if it exists. Read an existing file before overwriting it; prefer Edit for changes to existing files.",
		Parameters: harness.Strict([]string{"file_path", "content"},
			harness.P("file_path", harness.Str("Absolute path of the file to write.")),
			harness.P("content", harness.Str("The whole new content of the file.")),
		),
	},
	{
		Name: "Edit", Core: harness.ToolEdit,
		Description: "Replaces text in a file. old_string must match the file exactly (indentation included) and occur exactly once, unless replace_all is set. Read the file first; do not include Read's line-number prefixes.",
		Parameters: harness.Strict([]string{"file_path", "old_string", "new_string"},
			harness.P("file_path", harness.Str("Absolute path of the file to change.")),
			harness.P("old_string", harness.Str("Exact text to replace.")),
			harness.P("new_string", harness.Str("Text to put in its place (must differ from old_string).")),
			harness.P("replace_all", harness.With(harness.Bool("Replace every occurrence of old_string."), "default", false)),
		),
	},
	{
		Name: "MultiEdit", Core: harness.ToolEdit,
		Description: "Applies several Edit-style replacements to one file in order, all or none. Each edit sees the result of the previous ones.",
		Parameters: harness.Strict([]string{"file_path", "edits"},
			harness.P("file_path", harness.Str("Absolute path of the file to change.")),
			harness.P("edits", harness.With(harness.Arr("The replacements, applied in order.", editItem), "minItems", 1)),
		),
	},
	{
		Name: "Glob", Core: harness.ToolGlob,
		Description: "Finds files by glob pattern (`**/*.go`, `src/**/*.{ts,tsx}`) and returns their paths. Fast on any codebase size.",
		Parameters: harness.Strict([]string{"pattern"},
			harness.P("pattern", harness.Str("The glob pattern.")),
			harness.P("path", harness.Str("Directory to search in; defaults to the working directory.")),
		),
	},
	{
		Name: "Grep", Core: harness.ToolGrep,
		Description: "Searches file contents with a regular expression. Use it instead of running grep or rg. By default it lists the files that match; set output_mode to \"content\" for the matching lines.",
		Parameters: harness.Strict([]string{"pattern"},
			harness.P("pattern", harness.Str("Regular expression to search for.")),
			harness.P("path", harness.Str("File or directory to search; defaults to the working directory.")),
			harness.P("glob", harness.Str("Only search files matching this glob, e.g. \"*.js\".")),
			harness.P("output_mode", harness.Enum("\"content\" shows matching lines, \"files_with_matches\" (default) file paths, \"count\" match counts.", "content", "files_with_matches", "count")),
			harness.P("-B", harness.Num("Lines of context before each match (content mode).")),
			harness.P("-A", harness.Num("Lines of context after each match (content mode).")),
			harness.P("-C", harness.Num("Lines of context around each match (content mode).")),
			harness.P("-n", harness.Bool("Show line numbers (content mode; always on here).")),
			harness.P("-i", harness.Bool("Case-insensitive search.")),
			harness.P("type", harness.Str("File type to search, e.g. go, py, js, rust.")),
			harness.P("head_limit", harness.Num("Show only the first N results.")),
			harness.P("multiline", harness.Bool("Let patterns span lines (not supported here; matching is per line).")),
		),
	},
	{
		Name: "LS", Core: harness.ToolList,
		Description: "Lists the files and directories in a directory.",
		Parameters: harness.Strict([]string{"path"},
			harness.P("path", harness.Str("Absolute path of the directory.")),
			harness.P("ignore", harness.Arr("Glob patterns of names to leave out.", harness.Str(""))),
		),
	},
	{
		Name: "TodoWrite", Core: harness.ToolPlan,
		Description: "Replaces your todo list for the current task. Use it for work with three or more steps: keep exactly one item in_progress and mark items completed as soon as they are done. Skip it for trivial requests.",
		Parameters: harness.Strict([]string{"todos"},
			harness.P("todos", harness.Arr("The whole updated list.", todoItem)),
		),
	},
}

type bashArgs struct {
	Command     string   `json:"command"`
	Timeout     *float64 `json:"timeout"`
	Description string   `json:"description"`
	Background  bool     `json:"run_in_background"`
}

type readArgs struct {
	FilePath string   `json:"file_path"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
}

type writeArgs struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

type editArgs struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

type multiEditArgs struct {
	FilePath string `json:"file_path"`
	Edits    []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
}

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type grepArgs struct {
	Pattern    string   `json:"pattern"`
	Path       string   `json:"path"`
	Glob       string   `json:"glob"`
	OutputMode string   `json:"output_mode"`
	Before     *float64 `json:"-B"`
	After      *float64 `json:"-A"`
	Context    *float64 `json:"-C"`
	LineNums   *bool    `json:"-n"`
	IgnoreCase bool     `json:"-i"`
	Type       string   `json:"type"`
	HeadLimit  *float64 `json:"head_limit"`
	Offset     *float64 `json:"offset"`
	Multiline  bool     `json:"multiline"`
}

type lsArgs struct {
	Path   string   `json:"path"`
	Ignore []string `json:"ignore"`
}

type todoArgs struct {
	Todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
		ID         string `json:"id"`
		Priority   string `json:"priority"`
	} `json:"todos"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	inv, err := decode(call)
	if err != nil {
		return harness.Invocation{Tool: call.Name, Error: err.Error()}
	}
	return inv
}

func decode(call harness.ToolCall) (harness.Invocation, error) {
	bad := func(format string, args ...any) (harness.Invocation, error) {
		return harness.Invocation{}, fmt.Errorf("invalid arguments: "+format, args...)
	}
	switch call.Name {
	case "Bash":
		var a bashArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if strings.TrimSpace(a.Command) == "" {
			return bad("command is empty")
		}
		if a.Background {
			return bad("run_in_background is not available here; run the command in the foreground with a timeout")
		}
		inv := harness.Invocation{Tool: harness.ToolShell, Command: []string{"bash", "-lc", a.Command}, TimeoutMs: 120000}
		if a.Timeout != nil && *a.Timeout > 0 {
			inv.TimeoutMs = int64(min(*a.Timeout, 600000))
		}
		return inv, nil
	case "Read":
		var a readArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.FilePath == "" {
			return bad("file_path is required")
		}
		return harness.Invocation{Tool: harness.ToolRead, Path: a.FilePath, Offset: intOf(a.Offset), Limit: intOf(a.Limit)}, nil
	case "Write":
		var a writeArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.FilePath == "" {
			return bad("file_path is required")
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.FilePath, Content: a.Content}, nil
	case "Edit":
		var a editArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.FilePath == "" {
			return bad("file_path is required")
		}
		return harness.Invocation{Tool: harness.ToolEdit, Path: a.FilePath,
			Edits: []harness.Edit{{Old: a.OldString, New: a.NewString, All: a.ReplaceAll}}}, nil
	case "MultiEdit":
		var a multiEditArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.FilePath == "" || len(a.Edits) == 0 {
			return bad("file_path and at least one edit are required")
		}
		inv := harness.Invocation{Tool: harness.ToolEdit, Path: a.FilePath}
		for _, e := range a.Edits {
			inv.Edits = append(inv.Edits, harness.Edit{Old: e.OldString, New: e.NewString, All: e.ReplaceAll})
		}
		return inv, nil
	case "Glob":
		var a globArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.Pattern == "" {
			return bad("pattern is required")
		}
		return harness.Invocation{Tool: harness.ToolGlob, Pattern: a.Pattern, Path: a.Path}, nil
	case "Grep":
		var a grepArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		if a.Pattern == "" {
			return bad("pattern is required")
		}
		inv := harness.Invocation{Tool: harness.ToolGrep, Pattern: a.Pattern, Path: a.Path, Include: a.Glob,
			IgnoreCase: a.IgnoreCase, Limit: intOf(a.HeadLimit), Offset: intOf(a.Offset),
			Context: max(intOf(a.Context), intOf(a.Before), intOf(a.After))}
		switch a.OutputMode {
		case "", "files_with_matches":
			inv.OutputMode = harness.GrepFiles
		case "content":
			inv.OutputMode = harness.GrepContent
		case "count":
			inv.OutputMode = harness.GrepCount
		default:
			return bad("output_mode %q is not one of content, files_with_matches, count", a.OutputMode)
		}
		if a.Type != "" && inv.Include == "" {
			inv.Include = harness.TypeGlob(a.Type)
		}
		return inv, nil
	case "LS":
		var a lsArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		return harness.Invocation{Tool: harness.ToolList, Path: a.Path, Ignore: a.Ignore}, nil
	case "TodoWrite":
		var a todoArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{}, err
		}
		inv := harness.Invocation{Tool: harness.ToolPlan}
		for _, t := range a.Todos {
			st, ok := harness.PlanStatus(t.Status)
			if !ok {
				return bad("todo status %q is not one of pending, in_progress, completed", t.Status)
			}
			inv.Plan = append(inv.Plan, harness.PlanStep{Step: t.Content, Status: st})
		}
		return inv, nil
	}
	return harness.Unknown(call.Name, tools), nil
}

func intOf(f *float64) int {
	if f == nil {
		return 0
	}
	return int(*f)
}

// ShapeMessages implements [harness.MessagesShaper]: Claude Code's output
// budget, and extended thinking on the models that have it.
func (Harness) ShapeMessages(r harness.Request, p *anthropic.MessageNewParams) {
	if !harness.ThinkingModel(r.Model) {
		return
	}
	p.MaxTokens = 32000
	p.Thinking = anthropic.ThinkingConfigParamOfEnabled(8000)
}

// ProjectDocFiles implements [harness.ProjectDocser]: Claude Code reads
// CLAUDE.md in each directory and ~/.claude/CLAUDE.md for the user.
func (Harness) ProjectDocFiles() harness.DocFiles {
	return harness.DocFiles{Names: []string{"CLAUDE.md"}, Global: []string{"~/.claude/CLAUDE.md"}}
}

// RenderProjectDocs shows the files in a system reminder, each under the
// path it came from, as Claude Code does.
func (Harness) RenderProjectDocs(d harness.ProjectDocs) string {
	var b strings.Builder
	b.WriteString("<system-reminder>\nInstructions from the user and from this codebase follow. They take precedence over your defaults; follow them as written.\n")
	for _, doc := range d.Docs {
		kind := "project instructions, checked into the codebase"
		if doc.Global {
			kind = "the user's own instructions for every project"
		}
		fmt.Fprintf(&b, "\nContents of %s (%s):\n\n%s\n", doc.Path, kind, strings.TrimRight(doc.Text, "\n"))
	}
	if d.Note != "" {
		b.WriteString("\n" + d.Note + "\n")
	}
	b.WriteString("</system-reminder>")
	return b.String()
}
