package appserver

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Calls of external MCP servers' tools are mcpToolCall items: in progress
// when started, then completed with the result as a text block or failed
// with the error (every message checked against the reference schema by
// the test client).
func TestMCPToolCallItems(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "look it up"}}})
	r, _ := c.response(rid)
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	call := workflows.Item{ID: "item_1", Type: workflows.ItemMCPToolCall, Server: "docs", Tool: "search", Arguments: `{"q":"temporal"}`, Status: workflows.StatusInProgress}
	done, failed := call, call
	done.Status, done.Result = workflows.StatusCompleted, "3 pages found"
	failed.ID, failed.Status, failed.Message = "item_2", workflows.StatusFailed, `mcp server "docs": tool search failed: boom`
	started2 := call
	started2.ID = "item_2"
	b.emit(turnID,
		workflows.Event{Type: workflows.EventItemStarted, Item: &call},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &done},
		workflows.Event{Type: workflows.EventItemStarted, Item: &started2},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &failed},
	)
	b.end(turnID, workflows.StatusCompleted, "")
	var items []map[string]any
	for _, n := range c.until("turn/completed") {
		if n["method"] == "item/started" || n["method"] == "item/completed" {
			if it := params(n)["item"].(map[string]any); it["type"] == "mcpToolCall" {
				items = append(items, it)
			}
		}
	}
	if len(items) != 4 {
		t.Fatalf("mcpToolCall items: %v", items)
	}
	if it := items[0]; it["status"] != "inProgress" || it["server"] != "docs" || it["tool"] != "search" ||
		it["arguments"].(map[string]any)["q"] != "temporal" || it["result"] != nil {
		t.Errorf("started item %v", it)
	}
	res, _ := items[1]["result"].(map[string]any)
	if items[1]["status"] != "completed" || res == nil || res["content"].([]any)[0].(map[string]any)["text"] != "3 pages found" {
		t.Errorf("completed item %v", items[1])
	}
	errObj, _ := items[3]["error"].(map[string]any)
	if items[3]["status"] != "failed" || errObj == nil || errObj["message"] != failed.Message {
		t.Errorf("failed item %v", items[3])
	}
}
