package appserver

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// compactBackend is the fake backend that compacts.
type compactBackend struct {
	*fakeBackend
	compacted []string
}

func (b *compactBackend) Compact(_ context.Context, threadID string) error {
	if _, err := b.Thread(context.Background(), threadID); err != nil {
		return err
	}
	b.compacted = append(b.compacted, threadID)
	return nil
}

func ids(list []any, key string) []string {
	out := []string{}
	for _, e := range list {
		m := e.(map[string]any)
		if key == "item" {
			out = append(out, m["item"].(map[string]any)["id"].(string))
		} else {
			out = append(out, m[key].(string))
		}
	}
	return out
}

// thread/turns/list and thread/items/list page through a thread's
// history (newest turns first, oldest items first, by default), and
// thread/compact/start compacts through the backend.
func TestTurnsItemsListAndCompact(t *testing.T) {
	b := &compactBackend{fakeBackend: newFakeBackend()}
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	var turnIDs []string
	for i, text := range []string{"first", "second", "third"} {
		r := c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": text}}})
		tid := r["turn"].(map[string]any)["id"].(string)
		turnIDs = append(turnIDs, tid)
		b.emit(tid, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_" + text, Type: workflows.ItemAgentMessage, Text: "answer " + string(rune('A'+i))}})
		b.end(tid, workflows.StatusCompleted, "")
		c.until("turn/completed")
	}

	r := c.call("thread/turns/list", map[string]any{"threadId": id, "limit": 2})
	if got := ids(r["data"].([]any), "id"); !reflect.DeepEqual(got, []string{turnIDs[2], turnIDs[1]}) || r["nextCursor"] == nil {
		t.Fatalf("first page of turns: %v", r)
	}
	r2 := c.call("thread/turns/list", map[string]any{"threadId": id, "limit": 2, "cursor": r["nextCursor"]})
	if got := ids(r2["data"].([]any), "id"); !reflect.DeepEqual(got, []string{turnIDs[0]}) || r2["nextCursor"] != nil {
		t.Fatalf("second page of turns: %v", r2)
	}
	// Reversed from the first page's backwards cursor: its first turn again.
	r3 := c.call("thread/turns/list", map[string]any{"threadId": id, "sortDirection": "asc", "cursor": r["backwardsCursor"]})
	if got := ids(r3["data"].([]any), "id"); !reflect.DeepEqual(got, []string{turnIDs[2]}) {
		t.Fatalf("reversed turns: %v", r3)
	}
	asc := c.call("thread/turns/list", map[string]any{"threadId": id, "sortDirection": "asc", "itemsView": "notLoaded"})
	first := asc["data"].([]any)[0].(map[string]any)
	if first["id"] != turnIDs[0] || first["itemsView"] != "notLoaded" || len(first["items"].([]any)) != 0 {
		t.Fatalf("turns ascending, items not loaded: %v", asc)
	}

	items := c.call("thread/items/list", map[string]any{"threadId": id, "turnId": turnIDs[1]})
	data := items["data"].([]any)
	if len(data) != 2 || data[0].(map[string]any)["turnId"] != turnIDs[1] ||
		data[0].(map[string]any)["item"].(map[string]any)["type"] != "userMessage" ||
		data[1].(map[string]any)["item"].(map[string]any)["id"] != "item_second" {
		t.Fatalf("items of the second turn: %v", items)
	}
	all := c.call("thread/items/list", map[string]any{"threadId": id})
	allIDs := ids(all["data"].([]any), "item")
	if len(allIDs) != 6 || allIDs[5] != "item_third" {
		t.Fatalf("items of the thread: %v", allIDs)
	}
	after := c.call("thread/items/list", map[string]any{"threadId": id, "limit": 2, "cursor": map[string]any{"type": "item", "itemId": "item_first"}})
	if got := ids(after["data"].([]any), "item"); !reflect.DeepEqual(got, allIDs[2:4]) || after["nextCursor"] == nil {
		t.Fatalf("items after item_first: %v (all %v)", after, allIDs)
	}
	if e := c.callErr("thread/items/list", map[string]any{"threadId": id, "turnId": "turn-nope"}); !strings.Contains(e["message"].(string), "turn-nope") {
		t.Fatalf("unknown turn: %v", e)
	}
	if e := c.callErr("thread/turns/list", map[string]any{"threadId": id, "cursor": "x"}); !strings.Contains(e["message"].(string), "cursor") {
		t.Fatalf("bad cursor: %v", e)
	}

	if r := c.call("thread/goal/get", map[string]any{"threadId": id}); r["goal"] != nil || len(r) != 1 {
		t.Fatalf("thread/goal/get: %v", r)
	}
	if r := c.call("thread/compact/start", map[string]any{"threadId": id}); len(r) != 0 || !reflect.DeepEqual(b.compacted, []string{id}) {
		t.Fatalf("thread/compact/start: %v, compacted %v", r, b.compacted)
	}
	// Then a turn with the compaction item, as Codex's TUI waits for.
	notes := c.until("turn/completed")
	if got := methods(notes); !reflect.DeepEqual(got, []string{"turn/started", "item/started", "item/completed", "turn/completed"}) {
		t.Fatalf("after thread/compact/start: %v", got)
	}
	if it := params(notes[2])["item"].(map[string]any); it["type"] != "contextCompaction" {
		t.Fatalf("compaction item %v", it)
	}
	if e := c.callErr("thread/compact/start", map[string]any{"threadId": "nope"}); !strings.Contains(e["message"].(string), "nope") {
		t.Fatalf("compacting an unknown thread: %v", e)
	}
}

// account/read and mcpServerStatus/list answer from the configuration
// the server was given.
func TestAccountAndMCPStatusFromConfig(t *testing.T) {
	c := startClientWith(t, newFakeBackend(), func(o *Options) {
		o.APIKey = true
		o.MCPServers = []MCPServerInfo{{Name: "docs", BearerToken: true}, {Name: "old", Disabled: true}}
	})
	c.initialize()
	if r := c.call("account/read", map[string]any{}); r["account"].(map[string]any)["type"] != "apiKey" || r["requiresOpenaiAuth"] != false {
		t.Fatalf("account/read: %v", r)
	}
	r := c.call("mcpServerStatus/list", map[string]any{})
	data := r["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("mcpServerStatus/list: %v", r)
	}
	docs, old := data[0].(map[string]any), data[1].(map[string]any)
	if docs["name"] != "docs" || docs["authStatus"] != "bearerToken" || docs["runtimeStatus"] != nil ||
		old["name"] != "old" || old["authStatus"] != "unsupported" || old["runtimeStatus"] != "disabled" {
		t.Fatalf("mcpServerStatus/list: %v", r)
	}
}
