// Package minimal is the smallest useful harness: a short prompt and four
// tools (shell, read, write, edit) that map one to one onto core tools. It
// fits every wire API and is the reference for writing a new harness:
//
//  1. a package under harness/ with an embedded prompt.md;
//  2. a type implementing [harness.Harness]: Info (name, description, the
//     wire APIs it fits), Instructions (system prompt from [harness.Env]),
//     Tools (names and JSON schemas, each with the core tool it maps onto)
//     and Decode (arguments to a [harness.Invocation]; bad arguments and
//     unknown tools come back with Error set, never a panic);
//  3. optional hooks: [harness.OutputFormatter], [harness.ChatShaper],
//     [harness.MessagesShaper], [harness.Preluder], [harness.Finisher];
//  4. harness.Register in init, and a blank import in harness/all;
//  5. golden request bodies (harness/testdata), regenerated with
//     `go test ./harness/... -update`.
package minimal

import (
	_ "embed"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "minimal"

func init() { harness.Register(Harness{}) }

// Harness implements [harness.Harness].
type Harness struct{}

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "the smallest useful set: shell, read, write, edit",
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
	harness.Section(&b, "Working directory: "+env.Cwd)
	if len(env.Skills) > 0 {
		harness.Section(&b, "Skills (read the file before using one):\n"+harness.SkillsList(env.Skills, "- %s: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	harness.Section(&b, env.DeveloperInstructions)
	return b.String() + "\n"
}

// Tools implements [harness.Harness].
func (Harness) Tools() []harness.ToolSpec { return tools }

var tools = []harness.ToolSpec{
	{
		Name: "shell", Core: harness.ToolShell,
		Description: "Runs a bash command in the working directory; returns its exit code and output.",
		Parameters: harness.Object([]string{"command"},
			harness.P("command", harness.Str("The command.")),
		),
	},
	{
		Name: "read", Core: harness.ToolRead,
		Description: "Shows a file with line numbers.",
		Parameters: harness.Object([]string{"path"},
			harness.P("path", harness.Str("File path, relative to the working directory or absolute.")),
			harness.P("offset", harness.Int("First line to show (1-based).")),
			harness.P("limit", harness.Int("Number of lines to show.")),
		),
	},
	{
		Name: "write", Core: harness.ToolWrite,
		Description: "Writes a file, replacing it if it exists.",
		Parameters: harness.Object([]string{"path", "content"},
			harness.P("path", harness.Str("File path.")),
			harness.P("content", harness.Str("The whole content.")),
		),
	},
	{
		Name: "edit", Core: harness.ToolEdit,
		Description: "Replaces old_text, which must occur exactly once, with new_text.",
		Parameters: harness.Object([]string{"path", "old_text", "new_text"},
			harness.P("path", harness.Str("File path.")),
			harness.P("old_text", harness.Str("Exact text to replace.")),
			harness.P("new_text", harness.Str("Replacement.")),
		),
	},
}

// Decode implements [harness.Harness].
func (Harness) Decode(call harness.ToolCall) harness.Invocation {
	switch call.Name {
	case "shell":
		var a struct {
			Command string `json:"command"`
		}
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolShell, Error: err.Error()}
		}
		if strings.TrimSpace(a.Command) == "" {
			return harness.Invalid(harness.ToolShell, "command is empty")
		}
		return harness.Invocation{Tool: harness.ToolShell, Command: harness.ShellCommand(a.Command)}
	case "read":
		var a struct {
			Path   string `json:"path"`
			Offset int    `json:"offset"`
			Limit  int    `json:"limit"`
		}
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolRead, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolRead, "path is required")
		}
		return harness.Invocation{Tool: harness.ToolRead, Path: a.Path, Offset: a.Offset, Limit: a.Limit}
	case "write":
		var a struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolWrite, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolWrite, "path is required")
		}
		return harness.Invocation{Tool: harness.ToolWrite, Path: a.Path, Content: a.Content}
	case "edit":
		var a struct {
			Path    string `json:"path"`
			OldText string `json:"old_text"`
			NewText string `json:"new_text"`
		}
		if err := harness.DecodeArgs(call.Arguments, &a); err != nil {
			return harness.Invocation{Tool: harness.ToolEdit, Error: err.Error()}
		}
		if a.Path == "" {
			return harness.Invalid(harness.ToolEdit, "path is required")
		}
		return harness.Invocation{Tool: harness.ToolEdit, Path: a.Path, Edits: []harness.Edit{{Old: a.OldText, New: a.NewText}}}
	}
	return harness.Unknown(call.Name, tools)
}
