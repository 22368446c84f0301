package appserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// The fake backend deletes and injects in memory.

func (b *fakeBackend) DeleteThread(_ context.Context, threadID string) (threads.Deleted, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.threads[threadID] == nil {
		return threads.Deleted{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	delete(b.threads, threadID)
	return threads.Deleted{Threads: []string{threadID}, Executions: 1}, nil
}

func (b *fakeBackend) InjectItems(_ context.Context, threadID string, entries []workflows.Entry) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if t == nil {
		return fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	if t.view.RunningTurn != "" {
		return threads.Refusal(threads.ErrTurnRunning, "thread "+threadID+" is running a turn")
	}
	b.injected = append(b.injected, entries...)
	return nil
}

// thread/delete: the thread goes notLoaded, the response, then
// thread/deleted; it is gone from thread/read; an unknown id is Codex's
// error.
func TestThreadDelete(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	res, notes := c.response(c.request("thread/delete", map[string]any{"threadId": id}))
	if res["error"] != nil || len(notes) != 1 || notes[0]["method"] != "thread/status/changed" ||
		params(notes[0])["status"].(map[string]any)["type"] != "notLoaded" {
		t.Fatalf("thread/delete: %v after %v", res, notes)
	}
	if n := c.read(); n["method"] != "thread/deleted" || params(n)["threadId"] != id {
		t.Fatalf("after the response: %v", n)
	}
	wantError(t, c.callErr("thread/read", map[string]any{"threadId": id}), -32600, "thread not found")
	wantError(t, c.callErr("thread/delete", map[string]any{"threadId": id}), -32600, "no rollout found for thread id "+id)
	wantError(t, c.callErr("thread/delete", map[string]any{}), -32600, "missing field `threadId`")
}

// thread/inject_items: the TUI's /side message reaches the backend as a
// context entry; an item that is not a text message is refused, and the
// ephemeral fork made for the side conversation is deleted then.
func TestThreadInjectItems(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	main := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	side := func() string {
		fork := c.call("thread/fork", map[string]any{"threadId": main, "ephemeral": true})["thread"].(map[string]any)
		c.read()
		if fork["ephemeral"] != true {
			t.Fatalf("an ephemeral fork: %v", fork)
		}
		return fork["id"].(string)
	}
	id := side()
	dev := map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<side_conversation>aside</side_conversation>"}}}
	if res := c.call("thread/inject_items", map[string]any{"threadId": id, "items": []any{dev}}); len(res) != 0 {
		t.Fatalf("thread/inject_items result %v", res)
	}
	b.mu.Lock()
	got := append([]workflows.Entry(nil), b.injected...)
	b.mu.Unlock()
	if len(got) != 1 || got[0].Kind != "user" || !got[0].Context || got[0].Text != "<side_conversation>aside</side_conversation>" {
		t.Fatalf("injected %+v", got)
	}

	bad := side()
	wantError(t, c.callErr("thread/inject_items", map[string]any{"threadId": bad, "items": []any{map[string]any{"type": "function_call", "name": "x"}}}),
		-32600, "items[0] is not a valid response item")
	wantError(t, c.callErr("thread/read", map[string]any{"threadId": bad}), -32600, "thread not found")
	// The side conversation that worked stays; unknown threads are errors.
	c.call("thread/read", map[string]any{"threadId": id})
	wantError(t, c.callErr("thread/inject_items", map[string]any{"threadId": "nope", "items": []any{}}), -32600, "thread not found: nope")
}

// thread/search finds threads by name and first prompt, case-insensitively;
// a thread with neither is not found.
func TestThreadSearch(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string))
		c.read()
	}
	b.mu.Lock()
	b.threads[ids[0]].info.Preview = "Fix the Parser bug"
	b.threads[ids[1]].info.Name = "parser notes"
	b.mu.Unlock()
	res := c.call("thread/search", map[string]any{"searchTerm": "PARSER"})
	data := res["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("search: %v", res)
	}
	first := data[0].(map[string]any)
	if first["thread"].(map[string]any)["id"] != ids[1] || first["snippet"] != "parser notes" {
		t.Fatalf("newest match first, with its name as the snippet: %v", first)
	}
	if got := c.call("thread/search", map[string]any{"searchTerm": "nothing like it"})["data"].([]any); len(got) != 0 {
		t.Fatalf("no match: %v", got)
	}
	wantError(t, c.callErr("thread/search", map[string]any{}), -32600, "missing field `searchTerm`")
}

// /stop's calls: clean succeeds, terminate terminates nothing, an unknown
// thread is an error (as Codex's server answers a thread without
// background terminals).
func TestBackgroundTerminalsCleanAndTerminate(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	if res := c.call("thread/backgroundTerminals/clean", map[string]any{"threadId": id}); len(res) != 0 {
		t.Fatalf("clean: %v", res)
	}
	if res := c.call("thread/backgroundTerminals/terminate", map[string]any{"threadId": id, "processId": "1"}); res["terminated"] != false {
		t.Fatalf("terminate: %v", res)
	}
	wantError(t, c.callErr("thread/backgroundTerminals/clean", map[string]any{"threadId": "nope"}), -32600, "thread not found: nope")
	wantError(t, c.callErr("thread/backgroundTerminals/terminate", map[string]any{"threadId": "nope", "processId": "1"}), -32600, "thread not found: nope")
}

// Every thread reports its model.
func TestThreadReportsModel(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	th := c.call("thread/start", map[string]any{"model": "m-1"})["thread"].(map[string]any)
	c.read()
	if th["model"] != "m-1" {
		t.Fatalf("thread/start's thread: %v", th)
	}
	if got := c.call("thread/read", map[string]any{"threadId": th["id"]})["thread"].(map[string]any)["model"]; got != "m-1" {
		t.Fatalf("thread/read model %v", got)
	}
}

// timedBackend knows when each turn began (as the turn workflow's start
// tells the Temporal backend).
type timedBackend struct {
	*fakeBackend
	started time.Time
}

func (b timedBackend) TurnStarted(context.Context, string) (time.Time, error) { return b.started, nil }

// A turn's times come from the durable turn, not from when this
// connection saw it start: a turn that began 13 s before this server
// (restarted) took it up reports 13 s.
func TestTurnDurationFromTheDurableTurn(t *testing.T) {
	fb := newFakeBackend()
	now := time.Unix(1_800_000_100, 0) // the test clients' clock
	c := startClient(t, timedBackend{fakeBackend: fb, started: now.Add(-13 * time.Second)})
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	res, _ := c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	fb.end(turnID, workflows.StatusCompleted, "")
	n := c.until("turn/completed")
	turn := params(n[len(n)-1])["turn"].(map[string]any)
	if turn["durationMs"] != float64(13000) || turn["startedAt"] != float64(now.Unix()-13) {
		t.Fatalf("turn/completed's turn: %v", turn)
	}
}
