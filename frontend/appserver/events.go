package appserver

import (
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"

	"github.com/interpreter-dev/interpreter/workflows"
)

// itemJSON renders a workflow item as the protocol's ThreadItem; nil for
// items that are not thread items (tool errors).
func itemJSON(it *workflows.Item) protocol.ThreadItem {
	switch it.Type {
	case workflows.ItemAgentMessage:
		return protocol.AgentMessageItem{ID: it.ID, Text: it.Text}
	case workflows.ItemReasoning:
		summary := []string{}
		if it.Text != "" {
			summary = append(summary, it.Text)
		}
		return protocol.ReasoningItem{ID: it.ID, Summary: summary, Content: []string{}}
	case workflows.ItemCommandExecution:
		c := protocol.CommandExecutionItem{ID: it.ID, Command: it.Command, Cwd: it.Cwd,
			ProcessID: protocol.Nullable(it.ProcessID), Source: sessionSource(it), Status: itemStatus(it.Status),
			CommandActions: protocol.UnknownCommand(it.Command)}
		if it.Status != workflows.StatusInProgress {
			out := it.AggregatedOutput
			c.AggregatedOutput, c.ExitCode = &out, it.ExitCode
			if it.ExitCode != nil || it.DurationMs > 0 {
				d := it.DurationMs
				c.DurationMs = &d
			}
		}
		return c
	case workflows.ItemFileChange:
		changes := make([]protocol.FileUpdateChange, 0, len(it.Changes))
		for _, c := range it.Changes {
			kind := protocol.PatchChangeKind{Type: c.Kind}
			switch c.Kind {
			case "add", "delete":
			default:
				kind = protocol.PatchChangeKind{Type: "update"}
			}
			changes = append(changes, protocol.FileUpdateChange{Path: c.Path, Kind: kind})
		}
		return protocol.FileChangeItem{ID: it.ID, Changes: changes, Status: itemStatus(it.Status)}
	case workflows.ItemTodoList:
		return protocol.PlanItem{ID: it.ID, Text: planText(it.Items)}
	case workflows.ItemUserMessage:
		return protocol.UserMessageItem{ID: it.ID, Content: []protocol.UserInput{protocol.Text(it.Text)}}
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
func mcpItem(it *workflows.Item) protocol.McpToolCallItem {
	m := protocol.McpToolCallItem{ID: it.ID, Server: it.Server, Tool: it.Tool,
		Arguments: protocol.Arguments(orDefault(it.Arguments, "{}")), Status: protocol.StatusInProgress}
	switch it.Status {
	case workflows.StatusInProgress, "":
		return m
	case workflows.StatusCompleted:
		m.Status = protocol.StatusCompleted
		m.Result = &protocol.McpToolCallResult{Content: []protocol.McpContent{{Type: "text", Text: it.Result}}}
	default:
		m.Status = protocol.StatusFailed
		m.Error = &protocol.McpToolCallError{Message: orDefault(it.Message, "the call failed")}
	}
	if it.DurationMs > 0 {
		d := it.DurationMs
		m.DurationMs = &d
	}
	return m
}

// dynamicItem renders a dynamic tool call: in progress until resolved,
// then with the client's content and whether it succeeded.
func dynamicItem(it *workflows.Item) protocol.DynamicToolCallItem {
	d := it.Dynamic
	if d == nil {
		d = &workflows.DynamicCall{}
	}
	m := protocol.DynamicToolCallItem{ID: it.ID, Tool: d.Tool, Namespace: protocol.Nullable(d.Namespace),
		Arguments: protocol.Arguments(orDefault(d.Arguments, "{}")), Status: protocol.StatusInProgress}
	if !d.Resolved {
		return m
	}
	m.Status = protocol.StatusCompleted
	if !d.Success {
		m.Status = protocol.StatusFailed
	}
	items := []protocol.DynamicContentItem{}
	for _, c := range d.Content {
		if c.Type == "inputImage" {
			items = append(items, protocol.InputImage(c.ImageURL))
		} else {
			items = append(items, protocol.InputText(c.Text))
		}
	}
	if d.Error != "" {
		items = append(items, protocol.InputText(d.Error))
	}
	success, ms := d.Success, d.DurationMs
	m.ContentItems, m.Success, m.DurationMs = &items, &success, &ms
	return m
}

// startedItem is the item as item/started shows it: work not done yet.
func startedItem(it *workflows.Item) protocol.ThreadItem {
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

func planSteps(items []workflows.TodoItem) []protocol.PlanStep {
	steps := make([]protocol.PlanStep, 0, len(items))
	for _, t := range items {
		st := "pending"
		if t.Completed {
			st = "completed"
		}
		steps = append(steps, protocol.PlanStep{Step: t.Text, Status: st})
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
	// answer is the turn's latest completed agent message: turn/completed
	// carries it as the turn's summary, as Codex's server does (clients
	// such as the TUI's /recap read the answer from there).
	answer *protocol.AgentMessageItem
}

func newTranslator(threadID, turnID string, now func() int64) *translator {
	return &translator{threadID: threadID, turnID: turnID, now: now, started: map[string]bool{}}
}

// notice is a typed notification as the connection sends it.
func notice(n protocol.Notification) notification {
	return notification{Method: n.Method(), Params: n}
}

func (t *translator) itemStarted(item protocol.ThreadItem) notification {
	return notice(protocol.ItemStarted{ThreadID: t.threadID, TurnID: t.turnID, Item: item, StartedAtMs: t.now()})
}

func (t *translator) itemCompleted(item protocol.ThreadItem) notification {
	if m, ok := item.(protocol.AgentMessageItem); ok && m.Text != "" {
		t.answer = &m
	}
	return notice(protocol.ItemCompleted{ThreadID: t.threadID, TurnID: t.turnID, Item: item, CompletedAtMs: t.now()})
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
func (t *translator) userMessage(item protocol.ThreadItem) []notification {
	return []notification{t.itemStarted(item), t.itemCompleted(item)}
}

// translate maps one logged item event.
func (t *translator) translate(e workflows.Event) []notification {
	if e.Type == workflows.EventModelRetry {
		return []notification{t.retryNotice(e)}
	}
	if e.Type == workflows.EventTerminalInteraction && e.Item != nil {
		return []notification{notice(protocol.TerminalInteraction{ThreadID: t.threadID, TurnID: t.turnID,
			ItemID: e.Item.ID, ProcessID: e.Item.ProcessID, Stdin: e.Stdin})}
	}
	it := e.Item
	if it == nil {
		return nil
	}
	if it.Type == workflows.ItemError {
		if e.Type != workflows.EventItemCompleted {
			return nil
		}
		threadID := t.threadID
		return []notification{notice(protocol.Warning{ThreadID: &threadID, Message: it.Message})}
	}
	if it.Type == workflows.ItemTodoList {
		if e.Type == workflows.EventItemStarted {
			return nil
		}
		out := []notification{notice(protocol.TurnPlanUpdated{ThreadID: t.threadID, TurnID: t.turnID, Plan: planSteps(it.Items)})}
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
			out = append(out, notice(protocol.AgentMessageDelta(t.threadID, t.turnID, it.ID, it.Text)))
		case it.Type == workflows.ItemCommandExecution && it.AggregatedOutput != "":
			// The output not streamed yet; when the stream does not match
			// the recorded output, the item itself tells.
			if strings.HasPrefix(it.AggregatedOutput, t.sent) && len(it.AggregatedOutput) > len(t.sent) {
				out = append(out, notice(protocol.CommandOutputDelta(t.threadID, t.turnID, it.ID, it.AggregatedOutput[len(t.sent):])))
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
func turnItems(user protocol.ThreadItem, events []workflows.Event) []protocol.ThreadItem {
	items := []protocol.ThreadItem{}
	if user != nil {
		items = append(items, user)
	}
	index := map[string]int{}
	for _, e := range events {
		it := e.Item
		if it == nil || (e.Type != workflows.EventItemStarted && e.Type != workflows.EventItemCompleted && e.Type != workflows.EventApprovalRequested) {
			continue
		}
		var m protocol.ThreadItem
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
