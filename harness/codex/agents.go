package codex

import "github.com/interpreter-dev/interpreter/harness"

// Names of the sub-agent tools, as Codex 0.171 names them inside its
// multi_agent_v1 namespace.
const (
	ToolSpawnAgent  = "spawn_agent"
	ToolSendInput   = "send_input"
	ToolWaitAgent   = "wait_agent"
	ToolCloseAgent  = "close_agent"
	ToolResumeAgent = "resume_agent"
)

// AgentNamespace is the namespace Codex offers the sub-agent tools in.
const AgentNamespace = "multi_agent_v1"

// Roles a sub-agent may take (spawn_agent's agent_type).
var Roles = []string{"default", "worker", "explorer"}

// inputItems is the items parameter of spawn_agent and send_input, with
// Codex's field names.
func inputItems() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	return map[string]any{
		"type":        "array",
		"description": "Structured input, in place of message: text items (and, where supported, local_image paths).",
		"items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"audio_url": str("Audio data URL (type audio)."),
				"image_url": str("Image URL (type image)."),
				"name":      str("Display name (type skill or mention)."),
				"path":      str("File path (type local_image, local_audio or skill), or a mention's target."),
				"text":      str("The text (type text)."),
				"type":      str("One of text, image, local_image, audio, local_audio, skill, mention."),
			},
			"additionalProperties": false,
		},
	}
}

func strictObject(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// AgentTools are the sub-agent tools with Codex 0.171's names and
// parameters, plus agent_type (the role, as Open Interpreter offers it).
// The workflow runs them; they go to the model as plain function tools.
func AgentTools() []harness.ExternalTool {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	boolean := func(d string) map[string]any { return map[string]any{"type": "boolean", "description": d} }
	tool := func(name, desc string, params map[string]any) harness.ExternalTool {
		return harness.ExternalTool{Name: name, Description: desc, Parameters: params, Source: harness.SourceAgents, Tool: name}
	}
	return []harness.ExternalTool{
		tool(ToolSpawnAgent,
			"Starts a sub-agent on a well-scoped task and returns its id at once; it runs in parallel with you, as its own thread. "+
				"Spawn only when the user asks for sub-agents, delegation or parallel work. Give it a self-contained task; it inherits your model, "+
				"sandbox, approval policy and working directory. Collect its answer with wait_agent, and close it with close_agent when done.",
			strictObject(nil, map[string]any{
				"agent_type":       str("Role of the new agent: default, worker (makes changes) or explorer (reads and reports). Omit for default."),
				"fork_context":     boolean("True starts the agent with a copy of this conversation; false or omitted gives it only the task."),
				"items":            inputItems(),
				"message":          str("The task for the new agent, as text. Give message or items."),
				"model":            str("Model for the new agent; omit to use yours."),
				"reasoning_effort": str("Reasoning effort for the new agent; omit to use yours."),
			})),
		tool(ToolSendInput,
			"Sends a message to a sub-agent. It is queued as the agent's next task, or, with interrupt=true, stops what the agent is doing and becomes its task now.",
			strictObject([]string{"target"}, map[string]any{
				"interrupt": boolean("True stops the agent's current task and hands it this message now; false or omitted queues it."),
				"items":     inputItems(),
				"message":   str("The message, as text. Give message or items."),
				"target":    str("Id of the agent (from spawn_agent)."),
			})),
		tool(ToolWaitAgent,
			"Waits until one of the given agents reaches a final status (completed, errored, shutdown) or the timeout passes, and returns their statuses; "+
				"a completed status carries the agent's last message. An empty status with timed_out true means none finished in time.",
			strictObject([]string{"targets"}, map[string]any{
				"targets":    map[string]any{"type": "array", "description": "Ids of the agents to wait for; the wait ends when any of them finishes.", "items": map[string]any{"type": "string"}},
				"timeout_ms": map[string]any{"type": "number", "description": "How long to wait, in milliseconds: default 30000, at least 10000, at most 3600000. Long waits are better than many short ones."},
			})),
		tool(ToolCloseAgent,
			"Closes a sub-agent and every agent it spawned, and returns its status from before the close. An agent that finished stays open, and counts against the limit of open agents, until it is closed.",
			strictObject([]string{"target"}, map[string]any{
				"target": str("Id of the agent to close (from spawn_agent)."),
			})),
		tool(ToolResumeAgent,
			"Reopens a closed sub-agent, with its conversation so far, so it takes send_input and wait_agent again.",
			strictObject([]string{"id"}, map[string]any{
				"id": str("Id of the agent to reopen."),
			})),
	}
}
