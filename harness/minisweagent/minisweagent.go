// Package minisweagent emulates mini-swe-agent: no tool schema, a THOUGHT
// and exactly one ```bash block per reply, the output returned as
// <returncode>/<output>, and `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`
// to end.
package minisweagent

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

//go:embed prompt.md
var basePrompt string

// Name is this harness's name in config and routing.
const Name = "mini-swe-agent"

// Submit is the command that ends the task.
const Submit = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"

func init() { harness.Register(Harness{loop}) }

var loop = harness.TextLoop{
	Parse: parse,
	NoCommand: "Please always provide EXACTLY ONE action in a ```bash block; your reply had none. " +
		"If you are done, reply with `" + Submit + "`.",
}

func parse(text string) harness.Action {
	var cmds []string
	for _, b := range harness.FencedBlocks(text) {
		if b.Lang == "bash" || b.Lang == "sh" {
			cmds = append(cmds, strings.TrimSpace(b.Body))
		}
	}
	switch len(cmds) {
	case 0:
		return harness.Action{}
	case 1:
	default:
		return harness.Action{FormatError: fmt.Sprintf("Please always provide EXACTLY ONE action in a ```bash block; your reply had %d, so nothing was run.", len(cmds))}
	}
	first, _, _ := strings.Cut(cmds[0], "\n")
	if strings.TrimSpace(first) == Submit {
		return harness.Action{Done: true}
	}
	if cmds[0] == "" {
		return harness.Action{FormatError: "Your ```bash block was empty; nothing was run."}
	}
	return harness.Action{Command: cmds[0]}
}

// Harness implements [harness.Harness] as a text loop.
type Harness struct{ harness.TextLoop }

// Info implements [harness.Harness].
func (Harness) Info() harness.Info {
	return harness.Info{
		Name:        Name,
		Description: "mini-swe-agent: THOUGHT + one ```bash block per reply (text loop, no tool schema)",
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
	harness.Section(&b, "The working directory is "+env.Cwd+".")
	if len(env.Skills) > 0 {
		harness.Section(&b, "Skills (cat the file before using one):\n"+harness.SkillsList(env.Skills, "- %s: %s (%s)\n"))
	}
	harness.Section(&b, harness.Guidance(env, false))
	harness.Section(&b, env.DeveloperInstructions)
	return b.String() + "\n"
}

// Tools implements [harness.Harness]: none.
func (Harness) Tools() []harness.ToolSpec { return nil }

// FormatOutput implements [harness.OutputFormatter]: the observation.
func (Harness) FormatOutput(e harness.Entry) string {
	if e.Error {
		return harness.ErrorText(e)
	}
	if r, ok := harness.ParseShellOutput(e.Text); ok {
		return fmt.Sprintf("<returncode>%d</returncode>\n<output>\n%s</output>", r.ExitCode, r.Output)
	}
	return e.Text
}
