// Package qwencode emulates Alibaba's Qwen Code CLI: its tools (read_file,
// write_file, edit, run_shell_command, glob, search_file_content,
// list_directory, todo_write) with that CLI's parameter names, the start-up
// context exchange that opens a session (date, OS, working directory and a
// listing of it, acknowledged by the model), tool results as text parts and
// reasoning sent back as reasoning_content.
package qwencode

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
const Name = "qwen-code"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness] for Qwen models.
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:                 Name,
		Description:          "Qwen Code: read_file, write_file, edit, run_shell_command, glob, search_file_content, list_directory, todo_write; start-up context exchange",
		Wires:                []string{harness.WireChat},
		ReasoningContent:     true,
		EmptyToolCallContent: true,
		StartupContext:       true,
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
	if len(env.Skills) > 0 {
		harness.Section(&b, "# Available skills\nWhen a task matches a skill, read its file with read_file and follow it.\n"+
			harness.SkillsList(env.Skills, "- %s: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	if env.DeveloperInstructions != "" {
		harness.Section(&b, "# Additional instructions\n\n"+env.DeveloperInstructions)
	}
	return b.String() + "\n"
}

// Prelude implements [harness.Preluder]: the start-up context exchange.
func (Harness) Prelude(s harness.StartupInfo) []harness.Entry {
	text := fmt.Sprintf("This is Qwen Code. Here is the context for this session.\n"+
		"Today's date is %s.\n"+
		"My operating system is: %s\n"+
		"I'm working in the directory: %s\n"+
		"Its top level (up to 20 entries):\n\n%s", s.Date, s.OS, s.Cwd, s.Listing)
	return []harness.Entry{
		{Kind: harness.KindUser, Text: text, Context: true},
		{Kind: harness.KindAssistant, Text: "Thanks, I have the context. What should I work on?", Context: true},
	}
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var tools = []harness.ToolSpec{
	{
		Name: "read_file", Core: harness.ToolRead,
		Description: "Reads a text file and returns its content; long files are cut, and the result says how to read on with offset and limit.",
		Parameters: harness.Object([]string{"file_path"},
			harness.P("file_path", harness.Str("Absolute path of the file, e.g. /home/user/project/main.py.")),
			harness.P("offset", harness.Num("0-based line to start from; use with limit to page through large files.")),
			harness.P("limit", harness.Num("How many lines to read.")),
		),
	},
	{
		Name: "write_file", Core: harness.ToolWrite,
		Description: "Writes content to a file, creating it or replacing it entirely.",
		Parameters: harness.Object([]string{"file_path", "content"},
			harness.P("file_path", harness.Str("Absolute path of the file.")),
			harness.P("content", harness.Str("The complete content to write.")),
		),
	},
	{
		Name: "edit", Core: harness.ToolEdit,
		Description: "Replaces text in a file. old_string must be the exact literal text (whitespace and indentation included) and must identify one place, so include a few lines of context before and after; set replace_all to change every occurrence. Read the file first.",
		Parameters: harness.Object([]string{"file_path", "old_string", "new_string"},
			harness.P("file_path", harness.Str("Absolute path of the file to change.")),
			harness.P("old_string", harness.Str("Exact literal text to replace, unescaped.")),
			harness.P("new_string", harness.Str("Exact literal replacement text, unescaped.")),
			harness.P("replace_all", harness.Bool("Replace every occurrence of old_string (default false).")),
		),
	},
	{
		Name: "run_shell_command", Core: harness.ToolShell,
		Description: "Runs a command as `bash -c <command>` and returns its output and exit code. Use it for builds, tests, git and package managers, not for reading, searching or editing files (use the file tools). Commands time out after 2 minutes unless timeout says otherwise.",
		Parameters: harness.Object([]string{"command"},
			harness.P("command", harness.Str("The exact bash command.")),
			harness.P("is_background", harness.Bool("Not available here; leave it unset.")),
			harness.P("timeout", harness.Num("Timeout in milliseconds (max 600000).")),
			harness.P("description", harness.Str("One sentence saying what the command does.")),
			harness.P("directory", harness.Str("Absolute path of the directory to run in; the project root by default.")),
		),
	},
	{
		Name: "glob", Core: harness.ToolGlob,
		Description: "Finds files whose paths match a glob pattern such as `src/**/*.ts` and returns their paths.",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("The glob pattern.")),
			harness.P("path", harness.Str("Absolute path of the directory to search; the working directory by default.")),
		),
	},
	{
		Name: "search_file_content", Core: harness.ToolGrep,
		Description: "Searches file contents for a regular expression and returns the matching lines with their file paths and line numbers.",
		Parameters: harness.Object([]string{"pattern"},
			harness.P("pattern", harness.Str("The regular expression.")),
			harness.P("path", harness.Str("Absolute path of the directory (or file) to search; the working directory by default.")),
			harness.P("include", harness.Str("Glob of the files to search, e.g. `*.js` or `src/**/*.{ts,tsx}`.")),
		),
	},
	{
		Name: "list_directory", Core: harness.ToolList,
		Description: "Lists the files and subdirectories directly inside a directory.",
		Parameters: harness.Object([]string{"path"},
			harness.P("path", harness.Str("Absolute path of the directory.")),
			harness.P("ignore", harness.Arr("Glob patterns of names to leave out.", harness.Str(""))),
			harness.P("file_filtering_options", harness.Object(nil,
				harness.P("respect_git_ignore", harness.Bool("Leave out git-ignored files.")),
				harness.P("respect_qwen_ignore", harness.Bool("Leave out .qwenignore'd files.")),
			)),
		),
	},
	{
		Name: "todo_write", Core: harness.ToolPlan,
		Description: "Creates or replaces the todo list of the current task. Use it for work with several steps; keep one item in_progress.",
		Parameters: harness.Object([]string{"todos"},
			harness.P("todos", harness.Arr("The full list.", harness.Object([]string{"id", "content", "status"},
				harness.P("id", harness.Str("Stable id of the item.")),
				harness.P("content", harness.Str("What to do.")),
				harness.P("status", harness.Enum("", "pending", "in_progress", "completed")),
			))),
		),
	},
}

type readArgs struct {
	FilePath     string   `json:"file_path"`
	AbsolutePath string   `json:"absolute_path"` // older Qwen Code releases
	Offset       *float64 `json:"offset"`
	Limit        *float64 `json:"limit"`
	Pages        string   `json:"pages"`
}

type writeArgs struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

type editArgs struct {
	FilePath     string `json:"file_path"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	ReplaceAll   bool   `json:"replace_all"`
	ExpectedReps *int   `json:"expected_replacements"`
}

type shellArgs struct {
	Command      string   `json:"command"`
	IsBackground bool     `json:"is_background"`
	Timeout      *float64 `json:"timeout"`
	Description  string   `json:"description"`
	Directory    string   `json:"directory"`
}

type globArgs struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	CaseSensitive *bool  `json:"case_sensitive"`
}

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Include string `json:"include"`
	Glob    string `json:"glob"`  // grep_search, the newer name
	Limit   *int   `json:"limit"` // grep_search
}

type listArgs struct {
	Path    string         `json:"path"`
	Ignore  []string       `json:"ignore"`
	Options map[string]any `json:"file_filtering_options"`
}

type todoArgs struct {
	Todos []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"todos"`
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "read_file":
		var a readArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolRead, Error: err.Error()}
		}
		p := a.FilePath
		if p == "" {
			p = a.AbsolutePath
		}
		if p == "" {
			return harness.Invalid(harness.ToolRead, "file_path is required")
		}
		inv := harness.Invocation{Tool: harness.ToolRead, Path: p}
		if a.Offset != nil {
			inv.Offset = int(*a.Offset) + 1 // Qwen Code counts lines from 0
		}
		if a.Limit != nil {
			inv.Limit = int(*a.Limit)
		}
		return inv
	case "write_file":
		var a writeArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolWrite, Error: err.Error()}
		}
		if a.FilePath == "" {
			return harness.Invalid(harness.ToolWrite, "file_path is required")
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.FilePath, Content: a.Content}
	case "edit", "replace":
		var a editArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
		}
		if a.FilePath == "" {
			return harness.Invalid(harness.ToolEdit, "file_path is required")
		}
		all := a.ReplaceAll || (a.ExpectedReps != nil && *a.ExpectedReps > 1)
		return harness.Invocation{Tool: harness.ToolEdit, Path: a.FilePath, Edits: []harness.Edit{{Old: a.OldString, New: a.NewString, All: all}}}
	case "run_shell_command":
		var a shellArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if strings.TrimSpace(a.Command) == "" {
			return harness.Invalid(harness.ToolShell, "command is empty")
		}
		if a.IsBackground {
			return harness.Invalid(harness.ToolShell, "background commands are not available here; run it in the foreground with a timeout")
		}
		inv := harness.Invocation{Tool: harness.ToolShell, Command: harness.ShellCommand(a.Command), Workdir: a.Directory, TimeoutMs: 120000}
		if a.Timeout != nil && *a.Timeout > 0 {
			inv.TimeoutMs = int64(min(*a.Timeout, 600000))
		}
		return inv
	case "glob":
		var a globArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGlob, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGlob, "pattern is required")
		}
		return harness.Invocation{Tool: harness.ToolGlob, Pattern: a.Pattern, Path: a.Path}
	case "search_file_content", "grep_search":
		var a grepArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolGrep, Error: err.Error()}
		}
		if a.Pattern == "" {
			return harness.Invalid(harness.ToolGrep, "pattern is required")
		}
		inv := harness.Invocation{Tool: harness.ToolGrep, Pattern: a.Pattern, Path: a.Path, Include: a.Include, OutputMode: harness.GrepContent}
		if a.Glob != "" {
			inv.Include = a.Glob
		}
		if a.Limit != nil {
			inv.Limit = *a.Limit
		}
		return inv
	case "list_directory":
		var a listArgs
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolList, Error: err.Error()}
		}
		return harness.Invocation{Tool: harness.ToolList, Path: a.Path, Ignore: a.Ignore}
	case "todo_write":
		var a todoArgs
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

// FormatOutput implements [harness.OutputFormatter].
func (Harness) FormatOutput(e harness.Entry) string {
	if e.Error {
		return "Error: " + harness.ErrorText(e)
	}
	return e.Text
}

// ShapeChat implements [harness.ChatShaper]: tool results travel as a
// list of text parts, as Qwen Code sends them.
func (Harness) ShapeChat(_ harness.Request, p *openai.ChatCompletionNewParams) {
	for i := range p.Messages {
		t := p.Messages[i].OfTool
		if t == nil || !t.Content.OfString.Valid() {
			continue
		}
		text := t.Content.OfString.Value
		t.Content = openai.ChatCompletionToolMessageParamContentUnion{
			OfArrayOfContentParts: []openai.ChatCompletionContentPartTextParam{{Text: text}},
		}
	}
}

// ProjectDocFiles implements [harness.ProjectDocser]: Qwen Code reads
// QWEN.md in each directory and ~/.qwen/QWEN.md for the user.
func (Harness) ProjectDocFiles() harness.DocFiles {
	return harness.DocFiles{Names: []string{"QWEN.md"}, Global: []string{"~/.qwen/QWEN.md"}}
}

// RenderProjectDocs marks where each file's text starts and ends, as Qwen
// Code does with its context files.
func (Harness) RenderProjectDocs(d harness.ProjectDocs) string {
	var b strings.Builder
	for i, doc := range d.Docs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "--- Context from: %s ---\n%s\n--- End of Context from: %s ---", doc.Path, strings.TrimRight(doc.Text, "\n"), doc.Path)
	}
	if d.Note != "" {
		b.WriteString("\n\n" + d.Note)
	}
	return b.String()
}
