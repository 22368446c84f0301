package appserver

import (
	"strings"

	"github.com/interpreter-dev/interpreter/workflows"
)

// itemJSON renders a workflow item as the protocol's ThreadItem; nil for
// items that are not thread items (tool errors).
func itemJSON(it *workflows.Item) map[string]any {
	switch it.Type {
	case workflows.ItemAgentMessage:
		return map[string]any{"type": "agentMessage", "id": it.ID, "text": it.Text, "phase": nil, "memoryCitation": nil}
	case workflows.ItemReasoning:
		summary := []string{}
		if it.Text != "" {
			summary = append(summary, it.Text)
		}
		return map[string]any{"type": "reasoning", "id": it.ID, "summary": summary, "content": []string{}}
	case workflows.ItemCommandExecution:
		m := map[string]any{
			"type": "commandExecution", "id": it.ID, "command": it.Command, "cwd": it.Cwd,
			"processId": processID(it), "source": "agent", "status": itemStatus(it.Status),
			"commandActions":   []any{map[string]any{"type": "unknown", "command": it.Command}},
			"aggregatedOutput": nil, "exitCode": nil, "durationMs": nil,
		}
		if it.Status != workflows.StatusInProgress {
			m["aggregatedOutput"] = it.AggregatedOutput
			if it.ExitCode != nil {
				m["exitCode"] = *it.ExitCode
			}
			if it.ExitCode != nil || it.DurationMs > 0 {
				m["durationMs"] = it.DurationMs
			}
		}
		return m
	case workflows.ItemFileChange:
		changes := make([]any, 0, len(it.Changes))
		for _, c := range it.Changes {
			kind := map[string]any{"type": c.Kind}
			switch c.Kind {
			case "add", "delete":
			default:
				kind = map[string]any{"type": "update", "move_path": nil}
			}
			changes = append(changes, map[string]any{"path": c.Path, "kind": kind, "diff": ""})
		}
		return map[string]any{"type": "fileChange", "id": it.ID, "changes": changes, "status": itemStatus(it.Status)}
	case workflows.ItemTodoList:
		return map[string]any{"type": "plan", "id": it.ID, "text": planText(it.Items)}
	case workflows.ItemUserMessage:
		return map[string]any{"type": "userMessage", "id": it.ID, "clientId": nil,
			"content": userContent([]userInput{{Type: "text", Text: it.Text}})}
	case workflows.ItemDynamicToolCall:
		return dynamicItem(it)
	case workflows.ItemMCPToolCall:
		return mcpItem(it)
	case workflows.ItemCollabAgentToolCall:
		return collabItem(it)
	}
	return nil
}

// mcpItem renders a call of an external MCP server's tool: the result text
// as one text content block, or the error; an interrupted call counts as
// failed (the protocol has no interrupted MCP status).
func mcpItem(it *workflows.Item) map[string]any {
	m := map[string]any{"type": "mcpToolCall", "id": it.ID, "server": it.Server, "tool": it.Tool,
		"arguments": jsonArguments(orDefault(it.Arguments, "{}")), "status": "inProgress",
		"result": nil, "error": nil, "durationMs": nil}
	switch it.Status {
	case workflows.StatusInProgress, "":
		return m
	case workflows.StatusCompleted:
		m["status"] = "completed"
		m["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": it.Result}}}
	default:
		m["status"] = "failed"
		m["error"] = map[string]any{"message": orDefault(it.Message, "the call failed")}
	}
	if it.DurationMs > 0 {
		m["durationMs"] = it.DurationMs
	}
	return m
}

// dynamicItem renders a dynamic tool call: in progress until resolved,
// then with the client's content and whether it succeeded.
func dynamicItem(it *workflows.Item) map[string]any {
	d := it.Dynamic
	if d == nil {
		d = &workflows.DynamicCall{}
	}
	m := map[string]any{"type": "dynamicToolCall", "id": it.ID, "tool": d.Tool, "namespace": nilIfEmpty(d.Namespace),
		"arguments": jsonArguments(orDefault(d.Arguments, "{}")), "status": "inProgress",
		"contentItems": nil, "success": nil, "durationMs": nil}
	if !d.Resolved {
		return m
	}
	m["status"] = "completed"
	if !d.Success {
		m["status"] = "failed"
	}
	items := []map[string]any{}
	for _, c := range d.Content {
		if c.Type == "inputImage" {
			items = append(items, map[string]any{"type": "inputImage", "imageUrl": c.ImageURL})
		} else {
			items = append(items, map[string]any{"type": "inputText", "text": c.Text})
		}
	}
	if d.Error != "" {
		items = append(items, map[string]any{"type": "inputText", "text": d.Error})
	}
	m["contentItems"], m["success"], m["durationMs"] = items, d.Success, d.DurationMs
	return m
}

// startedItem is the item as item/started shows it: work not done yet.
func startedItem(it *workflows.Item) map[string]any {
	c := *it
	switch c.Type {
	case workflows.ItemAgentMessage, workflows.ItemReasoning:
		c.Text = ""
	case workflows.ItemDynamicToolCall:
		if c.Dynamic != nil {
			d := *c.Dynamic
			d.Resolved, d.Success, d.Content, d.Error, d.DurationMs = false, false, nil, "", 0
			c.Dynamic = &d
		}
	case workflows.ItemMCPToolCall:
		c.Status, c.Result, c.Message = workflows.StatusInProgress, "", ""
	case workflows.ItemCollabAgentToolCall:
		c.Status = workflows.StatusInProgress
	case workflows.ItemCommandExecution, workflows.ItemFileChange:
		c.Status, c.AggregatedOutput, c.ExitCode, c.DurationMs = workflows.StatusInProgress, "", nil, 0
		if c.Type == workflows.ItemFileChange {
			c.Changes = nil
		}
	}
	return itemJSON(&c)
}

func planText(items []workflows.TodoItem) string {
	var b strings.Builder
	for _, t := range items {
		if t.Completed {
			b.WriteString("- [x] ")
		} else {
			b.WriteString("- [ ] ")
		}
		b.WriteString(t.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func planSteps(items []workflows.TodoItem) []map[string]any {
	steps := make([]map[string]any, 0, len(items))
	for _, t := range items {
		st := "pending"
		if t.Completed {
			st = "completed"
		}
		steps = append(steps, map[string]any{"step": t.Text, "status": st})
	}
	return steps
}

// translator turns one turn's event log into notifications, in the
// reference's order: item/started, the item's deltas, item/completed.
type translator struct {
	threadID string
	turnID   string
	now      func() int64 // milliseconds
	started  map[string]bool
	// sent is the output of the command item being completed that went
	// out as live deltas already.
	sent string
}

func newTranslator(threadID, turnID string, now func() int64) *translator {
	return &translator{threadID: threadID, turnID: turnID, now: now, started: map[string]bool{}}
}

func (t *translator) note(method string, params map[string]any) notification {
	params["threadId"] = t.threadID
	params["turnId"] = t.turnID
	return notification{Method: method, Params: params}
}

func (t *translator) itemStarted(item map[string]any) notification {
	return t.note("item/started", map[string]any{"item": item, "startedAtMs": t.now()})
}

func (t *translator) itemCompleted(item map[string]any) notification {
	return t.note("item/completed", map[string]any{"item": item, "completedAtMs": t.now()})
}

// resume takes in the events a client already has (in a thread/resume
// response): items begun there are not begun again.
func (t *translator) resume(events []workflows.Event) {
	for _, e := range events {
		if e.Item == nil {
			continue
		}
		switch e.Type {
		case workflows.EventItemStarted, workflows.EventApprovalRequested:
			t.started[e.Item.ID] = true
		case workflows.EventItemCompleted:
			delete(t.started, e.Item.ID)
		}
	}
}

// userMessage is the turn's first item.
func (t *translator) userMessage(item map[string]any) []notification {
	return []notification{t.itemStarted(item), t.itemCompleted(item)}
}

// translate maps one logged item event.
func (t *translator) translate(e workflows.Event) []notification {
	if e.Type == workflows.EventModelRetry {
		return []notification{t.retryNotice(e)}
	}
	if e.Type == workflows.EventTerminalInteraction && e.Item != nil {
		return []notification{t.note("item/commandExecution/terminalInteraction",
			map[string]any{"itemId": e.Item.ID, "processId": e.Item.ProcessID, "stdin": e.Stdin})}
	}
	it := e.Item
	if it == nil {
		return nil
	}
	if it.Type == workflows.ItemError {
		if e.Type != workflows.EventItemCompleted {
			return nil
		}
		return []notification{{Method: "warning", Params: map[string]any{"threadId": t.threadID, "message": it.Message}}}
	}
	if it.Type == workflows.ItemTodoList {
		if e.Type == workflows.EventItemStarted {
			return nil
		}
		out := []notification{t.note("turn/plan/updated", map[string]any{"explanation": nil, "plan": planSteps(it.Items)})}
		if e.Type == workflows.EventItemCompleted {
			item := itemJSON(it)
			out = append(out, t.itemStarted(item), t.itemCompleted(item))
		}
		return out
	}
	var out []notification
	switch e.Type {
	case workflows.EventItemStarted, workflows.EventApprovalRequested:
		// An item waiting for approval has begun, as in the reference:
		// item/started comes before the approval request.
		if !t.started[it.ID] {
			t.started[it.ID] = true
			out = append(out, t.itemStarted(startedItem(it)))
		}
	case workflows.EventItemCompleted:
		if !t.started[it.ID] {
			t.started[it.ID] = true
			out = append(out, t.itemStarted(startedItem(it)))
		}
		switch {
		case it.Type == workflows.ItemAgentMessage && it.Text != "":
			out = append(out, t.note("item/agentMessage/delta", map[string]any{"itemId": it.ID, "delta": it.Text}))
		case it.Type == workflows.ItemCommandExecution && it.AggregatedOutput != "":
			// The output not streamed yet; when the stream does not match
			// the recorded output, the item itself tells.
			if strings.HasPrefix(it.AggregatedOutput, t.sent) && len(it.AggregatedOutput) > len(t.sent) {
				out = append(out, t.note("item/commandExecution/outputDelta", map[string]any{"itemId": it.ID, "delta": it.AggregatedOutput[len(t.sent):]}))
			}
		}
		delete(t.started, it.ID)
		out = append(out, t.itemCompleted(itemJSON(it)))
	}
	return out
}

// turnItems rebuilds a turn's items from its log, as thread/read and
// thread/resume show them: the final state of every item, in the order
// the items began.
func turnItems(user map[string]any, events []workflows.Event) []map[string]any {
	items := []map[string]any{}
	if user != nil {
		items = append(items, user)
	}
	index := map[string]int{}
	for _, e := range events {
		it := e.Item
		if it == nil || (e.Type != workflows.EventItemStarted && e.Type != workflows.EventItemCompleted && e.Type != workflows.EventApprovalRequested) {
			continue
		}
		var m map[string]any
		if e.Type != workflows.EventItemCompleted {
			m = startedItem(it)
		} else {
			m = itemJSON(it)
		}
		if m == nil {
			continue
		}
		if i, ok := index[it.ID]; ok {
			items[i] = m
			continue
		}
		index[it.ID] = len(items)
		items = append(items, m)
	}
	return items
}

// processID is a command item's unified-exec session id (null: none).
func processID(it *workflows.Item) any {
	if it.ProcessID == "" {
		return nil
	}
	return it.ProcessID
}
