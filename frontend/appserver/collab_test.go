package appserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Collaboration modes: collaborationMode/list names plan and default; a
// plan-mode turn/start carries plan instructions and request_user_input
// for that turn only, and the mode's model wins over the turn's.
func TestCollaborationModes(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initializeExperimental()
	modes := c.call("collaborationMode/list", map[string]any{})["data"].([]any)
	if len(modes) != 2 || modes[0].(map[string]any)["mode"] != "plan" || modes[1].(map[string]any)["mode"] != "default" {
		t.Fatalf("modes %v", modes)
	}
	th := c.call("thread/start", map[string]any{})["thread"].(map[string]any)
	c.read() // thread/started
	id := th["id"].(string)
	turn := func(mode map[string]any) map[string]any {
		return map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}, "collaborationMode": mode}
	}
	wantError(t, c.callErr("turn/start", turn(map[string]any{"mode": "pair", "settings": map[string]any{"model": "m"}})), -32600, "is not one of")
	started := c.call("turn/start", turn(map[string]any{"mode": "plan", "settings": map[string]any{"model": "plan-model", "developer_instructions": nil}}))
	turnID := started["turn"].(map[string]any)["id"].(string)

	b.mu.Lock()
	req := b.requests[len(b.requests)-1]
	b.mu.Unlock()
	if req.Mode == nil || !strings.Contains(req.Mode.Instructions, "<collaboration_mode># Plan mode") || req.Model != "plan-model" {
		t.Fatalf("plan turn %+v", req)
	}
	if len(req.Mode.Tools) != 1 || req.Mode.Tools[0].Name != "request_user_input" || req.Mode.Tools[0].Server != userInputNamespace {
		t.Fatalf("plan tools %+v", req.Mode.Tools)
	}

	// thread/settings/update keeps the mode for a turn/start naming none.
	b.end(turnID, "completed", "")
	c.until("turn/completed")
	wantError(t, c.callErr("thread/settings/update", map[string]any{"threadId": "nope"}), -32600, "not loaded")
	c.call("thread/settings/update", map[string]any{"threadId": id, "collaborationMode": map[string]any{"mode": "plan", "settings": map[string]any{"model": "kept-model"}}})
	c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "again"}}})
	b.mu.Lock()
	req = b.requests[len(b.requests)-1]
	b.mu.Unlock()
	if req.Mode == nil || len(req.Mode.Tools) != 1 || req.Model != "kept-model" {
		t.Fatalf("turn after thread/settings/update %+v", req)
	}

	plain := startClient(t, b)
	plain.initialize()
	wantError(t, plain.callErr("turn/start", turn(map[string]any{"mode": "plan", "settings": map[string]any{"model": "m"}})), -32600, "requires experimentalApi")
}

// An ephemeral thread is archived once its connection unsubscribes from
// it, or once the connection closes; others stay open.
func TestEphemeralThreadsAreArchived(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	start := func(ephemeral bool) string {
		th := c.call("thread/start", map[string]any{"ephemeral": ephemeral})["thread"].(map[string]any)
		c.read() // thread/started
		if th["ephemeral"] != ephemeral {
			t.Fatalf("thread/start ephemeral %v answered %v", ephemeral, th["ephemeral"])
		}
		return th["id"].(string)
	}
	archived := func(id string) bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.threads[id].info.Archived
	}
	side, kept, closed := start(true), start(false), start(true)
	c.call("thread/unsubscribe", map[string]any{"threadId": side})
	waitFor(t, func() bool { return archived(side) }, "the unsubscribed ephemeral thread to be archived")
	if archived(closed) {
		t.Fatal("an ephemeral thread still followed was archived")
	}
	c.close()
	waitFor(t, func() bool { return archived(closed) }, "the ephemeral thread of a closed connection to be archived")
	if archived(kept) {
		t.Fatal("a thread that is not ephemeral was archived")
	}
}

// A turn another client starts on a thread this connection follows (idle
// when it resumed it) reaches this connection too.
func TestForeignTurnsReachEveryFollower(t *testing.T) {
	b := newFakeBackend()
	a := startClient(t, b)
	a.initialize()
	th := a.call("thread/start", map[string]any{})["thread"].(map[string]any)
	a.read() // thread/started
	id := th["id"].(string)
	other := startClient(t, b)
	other.initialize()
	other.call("thread/resume", map[string]any{"threadId": id})
	started := a.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "from a"}}})
	turnID := started["turn"].(map[string]any)["id"].(string)
	if n := params(last(other.until("turn/started"))); n["turn"].(map[string]any)["id"] != turnID {
		t.Fatalf("the other client's turn/started: %v", n)
	}
	user := params(last(other.until("item/completed")))["item"].(map[string]any)
	if user["type"] != "userMessage" {
		t.Fatalf("the other client's first item: %v", user)
	}
	b.end(turnID, "completed", "")
	a.until("turn/completed")
	other.until("turn/completed")
}

// A short turn of another client that ends between two reads of the
// thread still reaches a follower, whole.
func TestForeignTurnThatEndedReachesFollowers(t *testing.T) {
	b := newFakeBackend()
	a := startClient(t, b)
	a.initialize()
	th := a.call("thread/start", map[string]any{})["thread"].(map[string]any)
	a.read() // thread/started
	id := th["id"].(string)
	other := startClient(t, b)
	other.initialize()
	other.call("thread/resume", map[string]any{"threadId": id})
	started := a.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "quick"}}})
	turnID := started["turn"].(map[string]any)["id"].(string)
	b.end(turnID, "completed", "")
	a.until("turn/completed")
	done := params(last(other.until("turn/completed")))["turn"].(map[string]any)
	if done["id"] != turnID || done["status"] != "completed" {
		t.Fatalf("the other client's turn/completed: %v", done)
	}
}

// turn/completed carries the turn's final answer as its summary, as
// Codex's server does (the TUI's /recap reads its answer from there); a
// turn with no answer has none.
func TestTurnCompletedCarriesTheAnswerAsSummary(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read() // thread/started
	for _, tc := range []struct {
		answers []string
		want    string
	}{{answers: []string{"first", "the answer"}, want: "the answer"}, {}} {
		started := c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}})
		turnID := started["turn"].(map[string]any)["id"].(string)
		for i, a := range tc.answers {
			b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: fmt.Sprint("msg_", i), Type: workflows.ItemAgentMessage, Text: a}})
		}
		b.end(turnID, "completed", "")
		turn := params(last(c.until("turn/completed")))["turn"].(map[string]any)
		items := turn["items"].([]any)
		switch {
		case tc.want == "" && (turn["itemsView"] != "notLoaded" || len(items) != 0):
			t.Errorf("a turn with no answer: %v", turn)
		case tc.want != "" && (turn["itemsView"] != "summary" || len(items) != 1 || items[0].(map[string]any)["text"] != tc.want):
			t.Errorf("the summary: %v", turn)
		}
	}
}
