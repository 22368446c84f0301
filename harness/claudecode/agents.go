package claudecode

import (
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

// ToolTask is Claude Code's sub-agent tool.
const ToolTask = "Task"

// agentTypes are the subagent_type values Task takes, each with the role
// it runs as: general-purpose keeps the parent's sandbox, Explore and
// Plan (which in Claude Code get no editing tools) run read-only.
var agentTypes = []struct{ name, role, desc string }{
	{"general-purpose", "default", "Researches open questions, searches code and carries out multi-step tasks, changes included. (Tools: *)"},
	{"Explore", "explorer", "Finds files, searches code and answers questions about the codebase; reads only. Say how thorough it should be: quick, medium or very thorough. (Tools: Bash, Glob, Grep, LS, Read; read-only)"},
	{"Plan", "explorer", "Reads the code and designs an implementation plan: the steps, the files involved, the trade-offs; reads only. (Tools: Bash, Glob, Grep, LS, Read; read-only)"},
}

// AgentTools implements [harness.AgentRunner]: Task with Claude Code's
// parameters (description, prompt, subagent_type, all required). It runs
// the agent to the end and returns its final message.
func (Harness) AgentTools() []harness.ExternalTool {
	var b strings.Builder
	b.WriteString("Starts a sub-agent on a task that takes many steps, and returns its final report when it is done. " +
		"It works on its own, with its own context: it sees only your prompt, not this conversation.\n\nAgent types (subagent_type):\n")
	for _, t := range agentTypes {
		fmt.Fprintf(&b, "- %s: %s\n", t.name, t.desc)
	}
	b.WriteString("\nUse it for open-ended searches and independent pieces of work; read a known file or grep for a known name yourself.\n" +
		"- Write a complete prompt: what to do, what to leave alone, and exactly what to report back. Say whether it may change files.\n" +
		"- Several Task calls in one message run in parallel.\n" +
		"- The report comes back to you only; tell the user what matters in it.")
	return []harness.ExternalTool{{
		Name: ToolTask, Description: b.String(), Source: harness.SourceAgents, Tool: harness.AgentRun,
		Parameters: harness.Strict([]string{"description", "prompt", "subagent_type"},
			harness.P("description", harness.Str("A short (3-5 word) description of the task")),
			harness.P("prompt", harness.Str("The task for the agent to perform")),
			harness.P("subagent_type", harness.Str("The type of specialized agent to use for this task")),
		),
	}}
}

// AgentRole implements [harness.AgentRunner].
func (Harness) AgentRole(subagentType string) (string, string) {
	var names []string
	for _, t := range agentTypes {
		if strings.EqualFold(t.name, strings.TrimSpace(subagentType)) {
			return t.role, ""
		}
		names = append(names, t.name)
	}
	if strings.TrimSpace(subagentType) == "" {
		return "", "subagent_type is required. Available agents: " + strings.Join(names, ", ")
	}
	return "", fmt.Sprintf("Agent type '%s' not found. Available agents: %s", subagentType, strings.Join(names, ", "))
}

// AgentResult implements [harness.AgentRunner]: Task's result is the
// agent's final message, as it wrote it.
func (Harness) AgentResult(r harness.AgentResult) string { return r.Message }
