// Package sweagent emulates SWE-agent's text interface: no tool schema, a
// DISCUSSION followed by exactly one command in a fenced block, the
// command's output returned as the next user message, and `submit` to end.
package sweagent

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "swe-agent"

func init() { harness.Register(Harness{loop}) }

var loop = harness.TextLoop{
	Parse: parse,
	NoCommand: "Your reply had no command. Reply with a DISCUSSION and exactly one command in a ``` block, " +
		"or with the single command `submit` if the task is done.",
}

func parse(text string) harness.Action {
	blocks := harness.FencedBlocks(text)
	switch len(blocks) {
	case 0:
		return harness.Action{}
	case 1:
	default:
		return harness.Action{FormatError: fmt.Sprintf("Your reply had %d command blocks; nothing was run. "+
			"Reply with a DISCUSSION and exactly one command in a ``` block.", len(blocks))}
	}
	cmd := strings.TrimSpace(blocks[0].Body)
	if cmd == "submit" {
		return harness.Action{Done: true}
	}
	if cmd == "" {
		return harness.Action{FormatError: "Your command block was empty; nothing was run."}
	}
	return harness.Action{Command: cmd}
}

// Harness implements [harness.Harness] as a text loop.
type Harness struct{ harness.TextLoop }

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "SWE-agent: DISCUSSION + one ``` command per reply (text loop, no tool schema); `submit` ends",
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
	harness.Section(&b, "(Current directory: "+env.Cwd+")")
	if len(env.Skills) > 0 {
		harness.Section(&b, "Skills you can read with cat before using them:\n"+harness.SkillsList(env.Skills, "- %s: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	harness.Section(&b, env.DeveloperInstructions)
	return b.String() + "\n"
}

// Tools implements [harness.Harness]: none, the commands are in the text.
func (Harness) Tools() []harness.ToolSpec { return nil }

// FormatOutput implements [harness.OutputFormatter]: the observation.
func (Harness) FormatOutput(e harness.Entry) string {
	if e.Error {
		return harness.ErrorText(e)
	}
	if r, ok := harness.ParseShellOutput(e.Text); ok {
		out := strings.TrimRight(r.Output, "\n")
		if out == "" {
			out = "Your command ran successfully and did not produce any output."
		}
		if r.ExitCode != 0 {
			out += fmt.Sprintf("\n(exit code %d)", r.ExitCode)
		}
		return out + "\nbash-$"
	}
	return e.Text
}
