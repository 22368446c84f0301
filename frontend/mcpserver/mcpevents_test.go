package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Calls of external MCP servers' tools go out as Codex's
// mcp_tool_call_begin and mcp_tool_call_end: the invocation (server, tool,
// arguments as JSON), the duration as {secs, nanos}, and the result as
// Rust's Result serializes, {"Ok": CallToolResult} or {"Err": message}.
func TestMCPToolCallEvents(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn {
		call := &workflows.Item{ID: "item_1", Type: workflows.ItemMCPToolCall, Server: "docs", Tool: "search",
			Arguments: `{"q":"temporal"}`, Status: workflows.StatusInProgress}
		done := *call
		done.Status, done.Result, done.DurationMs = workflows.StatusCompleted, "3 pages found", 1250
		failed := workflows.Item{ID: "item_2", Type: workflows.ItemMCPToolCall, Server: "docs", Tool: "fetch",
			Status: workflows.StatusFailed, Message: `mcp server "docs": tool fetch failed: boom`}
		return &fakeTurn{
			events: []workflows.Event{
				{Type: workflows.EventTurnStarted},
				{Type: workflows.EventItemStarted, Item: call},
				{Type: workflows.EventItemCompleted, Item: &done},
				// Completed without a started event first (a log read
				// from the middle): begin and end both go out.
				{Type: workflows.EventItemCompleted, Item: &failed},
				{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_3", Type: workflows.ItemAgentMessage, Text: "done"}},
				{Type: workflows.EventTurnCompleted},
			},
			result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: "done"},
		}
	})
	params := &mcp.CallToolParams{Name: ToolCodex, Arguments: map[string]any{"prompt": "look it up"}}
	params.SetProgressToken("tok-1")
	res, err := h.client.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	want := []string{"session_configured", "task_started", "mcp_tool_call_begin", "mcp_tool_call_end", "mcp_tool_call_begin",
		"mcp_tool_call_end", "agent_message_delta", "agent_message", "token_count", "task_complete"}
	if got := h.eventTypes(); !slices.Equal(got, want) {
		t.Fatalf("codex/event types %v, want %v", got, want)
	}
	evs := h.rec.notices("codex/event")
	got := func(i int) string {
		b, err := json.Marshal(evs[i].Params["msg"])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i, w := range map[int]string{
		2: `{"call_id":"item_1","invocation":{"arguments":{"q":"temporal"},"server":"docs","tool":"search"},"type":"mcp_tool_call_begin"}`,
		3: `{"call_id":"item_1","duration":{"nanos":250000000,"secs":1},"invocation":{"arguments":{"q":"temporal"},"server":"docs","tool":"search"},` +
			`"result":{"Ok":{"content":[{"text":"3 pages found","type":"text"}],"isError":false}},"type":"mcp_tool_call_end"}`,
		4: `{"call_id":"item_2","invocation":{"arguments":null,"server":"docs","tool":"fetch"},"type":"mcp_tool_call_begin"}`,
		5: `{"call_id":"item_2","duration":{"nanos":0,"secs":0},"invocation":{"arguments":null,"server":"docs","tool":"fetch"},` +
			`"result":{"Err":"mcp server \"docs\": tool fetch failed: boom"},"type":"mcp_tool_call_end"}`,
	} {
		if g := got(i); g != w {
			t.Errorf("message %d:\n got %s\nwant %s", i, g, w)
		}
	}
	var summaries []string
	for _, n := range h.rec.notices("notifications/progress") {
		if m, _ := n.Params["message"].(string); m != "" {
			summaries = append(summaries, m)
		}
	}
	if !slices.Contains(summaries, "calling: docs · search") {
		t.Errorf("progress messages %q, want one naming the MCP call", summaries)
	}
}
