// Package terminus2 emulates Terminus-2 (the Terminal-Bench agent): no tool
// schema; each reply is one JSON object with analysis, plan, commands
// (keystrokes and a duration) and task_complete; the commands' output comes
// back as "New Terminal Output". A reply that cannot be parsed is answered
// with the parse error.
package terminus2

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "terminus-2"

func init() { harness.Register(Harness{loop}) }

var loop = harness.TextLoop{
	Parse: parse,
	NoCommand: "Your reply had no commands and did not mark the task complete. Reply with a JSON object whose " +
		"`commands` run the next step, or with `task_complete` set to true if the task is done.",
}

type reply struct {
	Analysis string `json:"analysis"`
	Plan     string `json:"plan"`
	Commands []struct {
		Keystrokes string   `json:"keystrokes"`
		Duration   *float64 `json:"duration"`
	} `json:"commands"`
	TaskComplete bool `json:"task_complete"`
}

// tmuxKeys are keystrokes that name a key rather than text; they have no
// meaning for a command that is run to completion.
var tmuxKeys = map[string]bool{"C-c": true, "C-d": true, "C-z": true, "Escape": true, "q": true}

func parse(text string) harness.Action {
	body := strings.TrimSpace(text)
	for _, b := range harness.FencedBlocks(text) {
		if b.Lang == "json" || strings.HasPrefix(strings.TrimSpace(b.Body), "{") {
			body = strings.TrimSpace(b.Body)
			break
		}
	}
	start, end := strings.Index(body, "{"), strings.LastIndex(body, "}")
	if start < 0 || end < start {
		return harness.Action{} // no command at all: the loop reminds once
	}
	var r reply
	dec := json.NewDecoder(strings.NewReader(body[start : end+1]))
	if err := dec.Decode(&r); err != nil {
		return harness.Action{FormatError: parseError(err.Error())}
	}
	var lines []string
	for i, c := range r.Commands {
		k := c.Keystrokes
		if tmuxKeys[strings.TrimSpace(k)] {
			continue
		}
		if !strings.HasSuffix(k, "\n") && i < len(r.Commands)-1 {
			return harness.Action{FormatError: parseError(fmt.Sprintf("command %d does not end with a newline (\\n), so it would run together with the next one", i+1))}
		}
		if s := strings.TrimRight(k, "\n"); strings.TrimSpace(s) != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return harness.Action{Done: r.TaskComplete}
	}
	return harness.Action{Command: strings.Join(lines, "\n")}
}

func parseError(msg string) string {
	return "Your previous reply could not be used: " + msg + ".\n\nReply with one JSON object with the fields analysis, plan, commands and task_complete, and nothing else."
}

// Harness implements [harness.Harness] as a text loop.
type Harness struct{ harness.TextLoop }

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "Terminus-2: one JSON object per reply with commands (keystrokes) and task_complete (text loop, no tool schema)",
		Wires:       []string{harness.WireChat, harness.WireResponses, harness.WireMessages},
		TextLoop:    true,
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
	harness.Section(&b, "Current terminal state:\n"+env.Cwd+"$")
	if len(env.Skills) > 0 {
		harness.Section(&b, "Skills (cat the file before using one):\n"+harness.SkillsList(env.Skills, "- %s: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	harness.Section(&b, env.DeveloperInstructions)
	return b.String() + "\n"
}

// Tools implements [harness.Harness]: none.
func (Harness) Tools() []harness.ToolSpec { return nil }

// FormatOutput implements [harness.OutputFormatter]: the terminal output.
func (Harness) FormatOutput(e harness.Entry) string {
	if e.Error {
		return harness.ErrorText(e)
	}
	if r, ok := harness.ParseShellOutput(e.Text); ok {
		out := "New Terminal Output:\n\n" + r.Output
		if r.ExitCode != 0 {
			out = strings.TrimRight(out, "\n") + fmt.Sprintf("\n[exit status %d]\n", r.ExitCode)
		}
		return out
	}
	return e.Text
}
