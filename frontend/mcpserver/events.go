package mcpserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// msg is one Codex event message: {"type": ..., fields...}, the `msg` of a
// codex/event notification. Types and field names follow Codex's protocol
// (snake_case), so clients written for Codex read them.
type msg map[string]any

// sessionConfigured is the first message of a codex call.
func sessionConfigured(st Started) msg {
	c := st.Config
	return msg{
		"type":                "session_configured",
		"session_id":          st.ThreadID,
		"thread_id":           st.ThreadID,
		"model":               c.Model,
		"model_provider_id":   c.Provider.ID,
		"approval_policy":     c.ApprovalPolicy,
		"sandbox_policy":      map[string]any{"type": c.SandboxMode},
		"cwd":                 c.Cwd,
		"history_log_id":      0,
		"history_entry_count": 0,
	}
}

// eventMapper turns a turn's event log into Codex event messages. The
// turn's last messages come from its result instead (see endMessages): the
// log does not say whether a turn that ended without failing completed or
// was interrupted.
type eventMapper struct {
	began map[string]bool // items whose begin message was sent
	// announced is set when task_started went out before the log's start.
	announced bool
	// agents are the sub-agents' last states the stream has shown (see
	// agents.go).
	agents map[string]workflows.AgentState
}

func taskStarted(turnID string) msg {
	return msg{"type": "task_started", "turn_id": turnID, "model_context_window": nil}
}

func (m *eventMapper) messages(e workflows.Event) []msg {
	if e.Type == workflows.EventTurnStarted {
		if m.announced {
			return nil
		}
		return []msg{taskStarted(e.TurnID)}
	}
	if e.Type == workflows.EventModelRetry {
		return []msg{streamError(e)}
	}
	if e.Item == nil {
		return nil
	}
	switch e.Type {
	case workflows.EventItemStarted:
		return m.begin(e.Item)
	case workflows.EventItemCompleted:
		return m.completed(e.Item)
	}
	return nil
}

func (m *eventMapper) begin(it *workflows.Item) []msg {
	if m.began == nil {
		m.began = map[string]bool{}
	}
	if m.began[it.ID] {
		return nil
	}
	switch it.Type {
	case workflows.ItemCommandExecution:
		m.began[it.ID] = true
		return []msg{{"type": "exec_command_begin", "call_id": it.ID, "command": argv(it.Command), "cwd": it.Cwd, "parsed_cmd": []any{}}}
	case workflows.ItemFileChange:
		m.began[it.ID] = true
		return []msg{{"type": "patch_apply_begin", "call_id": it.ID, "auto_approved": true, "changes": changes(it)}}
	case workflows.ItemMCPToolCall:
		m.began[it.ID] = true
		return []msg{{"type": "mcp_tool_call_begin", "call_id": it.ID, "invocation": invocation(it)}}
	case workflows.ItemCollabAgentToolCall:
		if it.Agent == nil {
			return nil
		}
		if b := m.collabBegin(it); b != nil {
			m.began[it.ID] = true
			return []msg{b}
		}
	}
	return nil
}

func (m *eventMapper) completed(it *workflows.Item) []msg {
	switch it.Type {
	case workflows.ItemAgentMessage:
		// Its agent_message_delta messages come from the live view (see
		// livePoller.handle).
		return []msg{{"type": "agent_message", "message": it.Text}}
	case workflows.ItemReasoning:
		return []msg{{"type": "agent_reasoning", "text": it.Text}}
	case workflows.ItemCommandExecution:
		return append(m.begin(it), execEnd(it))
	case workflows.ItemFileChange:
		return append(m.begin(it), msg{"type": "patch_apply_end", "call_id": it.ID, "success": it.Status == workflows.StatusCompleted,
			"stdout": "", "stderr": "", "changes": changes(it)})
	case workflows.ItemMCPToolCall:
		return append(m.begin(it), mcpEnd(it))
	case workflows.ItemCollabAgentToolCall:
		if it.Agent == nil {
			return nil
		}
		if end := m.collabEnd(it); end != nil {
			return append(m.begin(it), end)
		}
	case workflows.ItemTodoList:
		plan := make([]any, 0, len(it.Items))
		for _, t := range it.Items {
			status := "pending"
			if t.Completed {
				status = "completed"
			}
			plan = append(plan, map[string]any{"step": t.Text, "status": status})
		}
		return []msg{{"type": "plan_update", "plan": plan}}
	case workflows.ItemError:
		// A tool error the model is told about; the turn goes on, so it is
		// not Codex's (turn-ending) error message.
		return []msg{{"type": "warning", "message": it.Message}}
	}
	return nil
}

func execEnd(it *workflows.Item) msg {
	exit := -1 // no exit code: the command was interrupted
	if it.ExitCode != nil {
		exit = *it.ExitCode
	}
	return msg{
		"type": "exec_command_end", "call_id": it.ID, "command": argv(it.Command), "cwd": it.Cwd,
		"exit_code": exit, "stdout": it.AggregatedOutput, "stderr": "",
		"aggregated_output": it.AggregatedOutput, "formatted_output": it.AggregatedOutput,
		"duration": duration(it.DurationMs),
		"status":   workflows.ShownStatus(it.Status),
	}
}

// invocation is Codex's McpInvocation: the server, its tool and the
// arguments as JSON (null when there are none).
func invocation(it *workflows.Item) map[string]any {
	var args any
	switch {
	case it.Arguments == "":
	case json.Valid([]byte(it.Arguments)):
		args = json.RawMessage(it.Arguments)
	default:
		args = it.Arguments // not JSON: shown as the model wrote it
	}
	return map[string]any{"server": it.Server, "tool": it.Tool, "arguments": args}
}

// mcpEnd is Codex's mcp_tool_call_end. Its result serializes as Rust's
// Result does: {"Ok": CallToolResult} with the result text as one text
// block, or {"Err": message} for a call that failed or was interrupted
// (the log does not tell a tool's own error result from a failed call, and
// both are failures to a client: Codex's is_success is false for either).
func mcpEnd(it *workflows.Item) msg {
	var result map[string]any
	if it.Status == workflows.StatusCompleted {
		result = map[string]any{"Ok": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": it.Result}}, "isError": false}}
	} else {
		errText := it.Message
		if errText == "" {
			errText = "the call failed"
		}
		result = map[string]any{"Err": errText}
	}
	return msg{"type": "mcp_tool_call_end", "call_id": it.ID, "invocation": invocation(it),
		"duration": duration(it.DurationMs), "result": result}
}

// duration is a Rust Duration as serde writes it.
func duration(ms int64) map[string]any {
	d := time.Duration(ms) * time.Millisecond
	return map[string]any{"secs": int64(d / time.Second), "nanos": int64(d % time.Second)}
}

// argv shows a command the way Codex's events do, as an argument vector;
// the log holds the shell line.
func argv(command string) []string { return []string{"bash", "-lc", command} }

func changes(it *workflows.Item) map[string]any {
	out := map[string]any{}
	for _, ch := range it.Changes {
		out[ch.Path] = map[string]any{"type": ch.Kind}
	}
	return out
}

// endMessages are a turn's last messages, from its result: token_count,
// then task_complete, turn_aborted or error.
func endMessages(res workflows.TurnResult) []msg {
	out := []msg{{"type": "token_count", "info": map[string]any{
		"total_token_usage":    tokenUsage(res),
		"last_token_usage":     tokenUsage(res),
		"model_context_window": nil,
	}, "rate_limits": nil}}
	switch res.Status {
	case workflows.StatusCompleted:
		var last any
		if res.FinalMessage != "" {
			last = res.FinalMessage
		}
		return append(out, msg{"type": "task_complete", "turn_id": res.TurnID, "last_agent_message": last})
	case workflows.StatusInterrupted:
		return append(out, msg{"type": "turn_aborted", "turn_id": res.TurnID, "reason": "interrupted"})
	}
	return append(out, msg{"type": "error", "message": failure(res)})
}

func tokenUsage(res workflows.TurnResult) map[string]any {
	u := res.Usage
	return map[string]any{
		"input_tokens":            u.InputTokens,
		"cached_input_tokens":     u.CachedInputTokens,
		"output_tokens":           u.OutputTokens,
		"reasoning_output_tokens": u.ReasoningTokens,
		"total_tokens":            u.InputTokens + u.OutputTokens,
	}
}

// failure says why a turn did not complete.
func failure(res workflows.TurnResult) string {
	if res.Error != "" {
		return "turn " + res.Status + ": " + res.Error
	}
	return "turn " + res.Status
}

// isDelta tells the streaming messages apart; they get no
// notifications/progress of their own.
func isDelta(m msg) bool {
	t, _ := m["type"].(string)
	return t == "agent_message_delta" || t == "exec_command_output_delta"
}

// summary is a short line for notifications/progress.
func summary(m msg) string {
	t, _ := m["type"].(string)
	switch t {
	case "exec_command_begin":
		if cmd, ok := m["command"].([]string); ok && len(cmd) > 0 {
			return "running: " + cmd[len(cmd)-1]
		}
	case "mcp_tool_call_begin":
		if inv, ok := m["invocation"].(map[string]any); ok {
			return fmt.Sprintf("calling: %v · %v", inv["server"], inv["tool"])
		}
	case "agent_message":
		return "agent message"
	case "collab_agent_spawn_end":
		if id, ok := m["new_thread_id"].(string); ok {
			return "sub-agent started: " + id
		}
	case "collab_waiting_begin":
		return "waiting for sub-agents"
	case "task_complete":
		return "turn completed"
	case "stream_error":
		if text, ok := m["message"].(string); ok {
			return text // the retry, as the client's progress shows it
		}
	}
	return t
}

// streamError is Codex's stream_error message, sent for each retry of a
// model call while it happens: message says which attempt comes next and
// when, additional_details what failed.
func streamError(e workflows.Event) msg {
	var info any
	if r := e.Retry; r != nil {
		var status any
		if r.HTTPStatus != 0 {
			status = r.HTTPStatus
		}
		key := "http_connection_failed"
		if r.Kind == workflows.RetryStream {
			key = "response_stream_disconnected"
		}
		info = map[string]any{key: map[string]any{"http_status_code": status}}
	}
	return msg{"type": "stream_error", "message": workflows.RetryText(e), "codex_error_info": info, "additional_details": e.Error}
}
