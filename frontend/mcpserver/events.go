package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/interpreter-dev/interpreter/workflows"
)

// sessionConfigured is the first message of a codex call.
func sessionConfigured(st Started) msg {
	c := st.Config
	return sessionConfiguredEvent{SessionID: st.ThreadID, ThreadID: st.ThreadID, Model: c.Model,
		ModelProviderID: c.Provider.ID, ApprovalPolicy: c.ApprovalPolicy, SandboxPolicy: sandboxPolicy{Type: c.SandboxMode},
		Cwd: c.Cwd}
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
	// threadID is the thread whose turn the log is (goal messages name it).
	threadID string
}

func taskStarted(turnID string) msg {
	return taskStartedEvent{TurnID: turnID}
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
	if e.Type == workflows.EventGoalUpdated && e.Goal != nil {
		return []msg{goalUpdated(m.threadID, e)}
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
		return []msg{execCommandBeginEvent{CallID: it.ID, Command: argv(it.Command), Cwd: it.Cwd, ParsedCmd: []json.RawMessage{}}}
	case workflows.ItemFileChange:
		m.began[it.ID] = true
		return []msg{patchApplyBeginEvent{CallID: it.ID, AutoApproved: true, Changes: changes(it)}}
	case workflows.ItemMCPToolCall:
		m.began[it.ID] = true
		return []msg{mcpToolCallBeginEvent{CallID: it.ID, Invocation: invocation(it)}}
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
		return []msg{agentMessageEvent{Message: it.Text}}
	case workflows.ItemReasoning:
		return []msg{agentReasoningEvent{Text: it.Text}}
	case workflows.ItemCommandExecution:
		return append(m.begin(it), execEnd(it))
	case workflows.ItemFileChange:
		return append(m.begin(it), patchApplyEndEvent{CallID: it.ID, Success: it.Status == workflows.StatusCompleted,
			Changes: changes(it)})
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
		plan := make([]planStep, 0, len(it.Items))
		for _, t := range it.Items {
			status := "pending"
			if t.Completed {
				status = "completed"
			}
			plan = append(plan, planStep{Step: t.Text, Status: status})
		}
		return []msg{planUpdateEvent{Plan: plan}}
	case workflows.ItemError:
		// A tool error the model is told about; the turn goes on, so it is
		// not Codex's (turn-ending) error message.
		return []msg{warningEvent{Message: it.Message}}
	}
	return nil
}

func execEnd(it *workflows.Item) msg {
	exit := -1 // no exit code: the command was interrupted
	if it.ExitCode != nil {
		exit = *it.ExitCode
	}
	return execCommandEndEvent{
		CallID: it.ID, Command: argv(it.Command), Cwd: it.Cwd,
		ExitCode: exit, Stdout: it.AggregatedOutput,
		AggregatedOutput: it.AggregatedOutput, FormattedOutput: it.AggregatedOutput,
		Duration: durationOf(it.DurationMs),
		Status:   workflows.ShownStatus(it.Status),
	}
}

// invocation is Codex's McpInvocation: the server, its tool and the
// arguments as JSON (null when there are none).
func invocation(it *workflows.Item) mcpInvocation {
	var args any
	switch {
	case it.Arguments == "":
	case json.Valid([]byte(it.Arguments)):
		args = json.RawMessage(it.Arguments)
	default:
		args = it.Arguments // not JSON: shown as the model wrote it
	}
	return mcpInvocation{Server: it.Server, Tool: it.Tool, Arguments: args}
}

// mcpEnd is Codex's mcp_tool_call_end. Its result serializes as Rust's
// Result does: {"Ok": CallToolResult} with the result text as one text
// block, or {"Err": message} for a call that failed or was interrupted
// (the log does not tell a tool's own error result from a failed call, and
// both are failures to a client: Codex's is_success is false for either).
func mcpEnd(it *workflows.Item) msg {
	var result mcpResult
	if it.Status == workflows.StatusCompleted {
		result.Ok = &callToolResult{Content: []textContent{{Type: "text", Text: it.Result}}}
	} else {
		errText := it.Message
		if errText == "" {
			errText = "the call failed"
		}
		result.Err = &errText
	}
	return mcpToolCallEndEvent{CallID: it.ID, Invocation: invocation(it),
		Duration: durationOf(it.DurationMs), Result: result}
}

// argv shows a command the way Codex's events do, as an argument vector;
// the log holds the shell line.
func argv(command string) []string { return []string{"bash", "-lc", command} }

func changes(it *workflows.Item) map[string]fileChange {
	out := map[string]fileChange{}
	for _, ch := range it.Changes {
		out[ch.Path] = fileChange{Type: ch.Kind}
	}
	return out
}

// endMessages are a turn's last messages, from its result: token_count,
// then task_complete, turn_aborted or error.
func endMessages(res workflows.TurnResult) []msg {
	usage := usageOf(res)
	out := []msg{tokenCountEvent{Info: tokenCountInfo{TotalTokenUsage: usage, LastTokenUsage: usage}}}
	switch res.Status {
	case workflows.StatusCompleted:
		var last *string
		if res.FinalMessage != "" {
			last = &res.FinalMessage
		}
		return append(out, taskCompleteEvent{TurnID: res.TurnID, LastAgentMessage: last})
	case workflows.StatusInterrupted:
		return append(out, turnAbortedEvent{TurnID: res.TurnID, Reason: "interrupted"})
	}
	return append(out, errorEvent{Message: failure(res)})
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
	t := m.eventType()
	return t == "agent_message_delta" || t == "exec_command_output_delta"
}

// summary is a short line for notifications/progress.
func summary(m msg) string {
	switch e := m.(type) {
	case execCommandBeginEvent:
		if len(e.Command) > 0 {
			return "running: " + e.Command[len(e.Command)-1]
		}
	case mcpToolCallBeginEvent:
		return fmt.Sprintf("calling: %v · %v", e.Invocation.Server, e.Invocation.Tool)
	case agentMessageEvent:
		return "agent message"
	case collabSpawnEndEvent:
		if e.NewThreadID != nil {
			return "sub-agent started: " + *e.NewThreadID
		}
	case collabWaitingBeginEvent:
		return "waiting for sub-agents"
	case taskCompleteEvent:
		return "turn completed"
	case threadGoalUpdatedEvent:
		return "goal " + e.Goal.Status
	case streamErrorEvent:
		return e.Message // the retry, as the client's progress shows it
	}
	return m.eventType()
}

// streamError is Codex's stream_error message, sent for each retry of a
// model call while it happens: message says which attempt comes next and
// when, additional_details what failed.
func streamError(e workflows.Event) msg {
	var info *codexErrorInfo
	if r := e.Retry; r != nil {
		var status *int
		if r.HTTPStatus != 0 {
			code := r.HTTPStatus
			status = &code
		}
		info = &codexErrorInfo{HTTPConnectionFailed: &httpStatus{status}}
		if r.Kind == workflows.RetryStream {
			info = &codexErrorInfo{ResponseStreamDisconnected: &httpStatus{status}}
		}
	}
	return streamErrorEvent{Message: workflows.RetryText(e), CodexErrorInfo: info, AdditionalDetails: e.Error}
}
