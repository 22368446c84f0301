package harness

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed guidance.md
var guidance string

// Guidance is the harness_guidance reliability block, or "" when env turns
// it off or the harness does not want it: harnesses built for models that
// tend to over-analyse (Kimi) pass always; others get it only when the
// model is one of those.
func Guidance(env Env, always bool) string {
	if env.NoGuidance {
		return ""
	}
	if always || WantsGuidance(env.Model) {
		return strings.TrimRight(guidance, "\n")
	}
	return ""
}

// WantsGuidance reports whether a model is of a family that benefits from
// the guidance block (Kimi and Kimi-Code style models).
func WantsGuidance(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "kimi") || strings.Contains(m, "moonshot")
}

// ShellResult is a shell tool output in the workflow's format ("Exit code:
// N\nWall time: S seconds\nOutput:\n...").
type ShellResult struct {
	ExitCode int
	Wall     string
	Output   string
}

// ParseShellOutput reads a shell tool output written by the workflow; ok
// is false for any other text (an error, an interrupted command).
func ParseShellOutput(text string) (ShellResult, bool) {
	rest, ok := strings.CutPrefix(text, "Exit code: ")
	if !ok {
		return ShellResult{}, false
	}
	code, rest, ok := strings.Cut(rest, "\n")
	if !ok {
		return ShellResult{}, false
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		return ShellResult{}, false
	}
	wall, rest, ok := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(wall, "Wall time: ") {
		return ShellResult{}, false
	}
	out, ok := strings.CutPrefix(rest, "Output:\n")
	if !ok && rest != "Output:" {
		return ShellResult{}, false
	}
	return ShellResult{ExitCode: n, Wall: strings.TrimSuffix(strings.TrimPrefix(wall, "Wall time: "), " seconds"), Output: out}, true
}

// ErrorText is a failed tool output without the workflow's "error: "
// prefix.
func ErrorText(e Entry) string {
	return strings.TrimPrefix(e.Text, "error: ")
}

// SkillsList renders skills one per line with format (name, description,
// path, in that order); "" when there are none.
func SkillsList(skills []Skill, format string) string {
	var b strings.Builder
	for _, s := range skills {
		fmt.Fprintf(&b, format, s.Name, s.Description, s.Path)
	}
	return b.String()
}

// Section appends a titled block to b when body is not empty.
func Section(b *strings.Builder, body string) {
	body = strings.TrimSpace(body)
	if body == "" {
		return
	}
	b.WriteString("\n\n")
	b.WriteString(body)
}
