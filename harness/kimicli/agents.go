package kimicli

import (
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

// ToolAgent is kimi-cli's sub-agent tool.
const ToolAgent = "Agent"

// agentTypes are kimi-cli's built-in agent types and the roles they run
// as: coder changes code (worker: refused under a read-only parent),
// explore and plan read only.
var agentTypes = []struct{ name, role, desc string }{
	{"coder", "worker", "Software engineering work: reads files, edits code, runs commands, and reports a complete summary. (Tools: Shell, ReadFile, Glob, Grep, WriteFile, StrReplaceFile)"},
	{"explore", "explorer", "Fast read-only investigation of the codebase: finds files, searches code, explains how things work. Say how thorough: quick, medium or thorough. (Tools: Shell, ReadFile, Glob, Grep; read-only)"},
	{"plan", "explorer", "Read-only planning: the steps of an implementation, the files involved, the trade-offs. (Tools: ReadFile, Glob, Grep; read-only)"},
}

func nullable(desc string) map[string]any {
	return map[string]any{"anyOf": []any{harness.Str(""), map[string]any{"type": "null"}}, "description": desc, "default": nil}
}

// AgentTools implements [harness.AgentRunner]: Agent with kimi-cli's
// parameters, run in the foreground (the agent's summary is the result).
// kimi-cli's run_in_background is not offered: its results are read with
// task tools this harness does not have.
func (Harness) AgentTools() []harness.ExternalTool {
	var b strings.Builder
	b.WriteString("Starts a subagent on a focused task, or continues one (resume with its agent_id), and returns its summary when it is done. " +
		"Each instance has its own context, kept between its runs; it sees only the prompt you give it.\n\n**Built-in agent types**\n\n")
	for _, t := range agentTypes {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.name, t.desc)
	}
	b.WriteString("\n**Usage**\n\n" +
		"- Give a 3-5 word `description` and a complete `prompt`; say whether the agent may write code or should only investigate.\n" +
		"- Prefer `explore` for research that takes more than a few searches; several Agent calls in one message run in parallel.\n" +
		"- Use `resume` to continue an instance that already holds the relevant context.\n" +
		"- The summary is shown to you only; tell the user what matters in it.\n" +
		"- Do not use it to read a known file or for a task of one or two tool calls.")
	return []harness.ExternalTool{{
		Name: ToolAgent, Description: b.String(), Source: harness.SourceAgents, Tool: harness.AgentRun,
		Parameters: harness.Object([]string{"description", "prompt"},
			harness.P("description", harness.Str("A short (3-5 word) description of the task")),
			harness.P("prompt", harness.Str("The task for the agent to perform")),
			harness.P("subagent_type", harness.With(harness.Str("The built-in agent type to use. Defaults to `coder`."), "default", "coder")),
			harness.P("model", nullable("Optional model for the agent; the parent's model when omitted.")),
			harness.P("resume", nullable("Optional agent ID to resume instead of creating a new instance.")),
			harness.P("timeout", harness.With(map[string]any{"anyOf": []any{harness.Int(""), map[string]any{"type": "null"}},
				"description": "Optional timeout in seconds for the agent's run (30-3600); the agent is stopped when it passes."}, "default", nil, "minimum", 30, "maximum", 3600)),
		),
	}}
}

// AgentRole implements [harness.AgentRunner].
func (Harness) AgentRole(subagentType string) (string, string) {
	name := strings.TrimSpace(subagentType)
	if name == "" {
		name = "coder"
	}
	var names []string
	for _, t := range agentTypes {
		if t.name == name {
			return t.role, ""
		}
		names = append(names, t.name)
	}
	return "", fmt.Sprintf("Unknown subagent type: %s. The built-in types are %s.", subagentType, strings.Join(names, ", "))
}

// AgentResult implements [harness.AgentRunner]: the lines kimi-cli's
// Agent returns, then the agent's summary.
func (Harness) AgentResult(r harness.AgentResult) string {
	resumed := "false"
	if r.Resumed {
		resumed = "true"
	}
	t := r.SubagentType
	if t == "" {
		t = "coder"
	}
	return "agent_id: " + r.AgentID + "\nresumed: " + resumed + "\nactual_subagent_type: " + t + "\nstatus: completed\n\n[summary]\n" + r.Message
}
