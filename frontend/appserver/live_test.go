package appserver

import (
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// While a turn is followed, a running command's output goes out as
// item/commandExecution/outputDelta and streamed model text as
// item/agentMessage/delta (a character cut between two polls waits for its
// end), each between its item's item/started and item/completed; the
// completion carries only the rest, so an item's deltas add up to its final
// text. Streamed text opens an agentMessage item of its own, which the
// message's completion closes. Every message is checked against the
// reference schema by the test client.
func TestLiveDeltas(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "run it"}}})
	r, _ := c.response(rid)
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)

	out, text := threads.LiveCommandOutput, threads.LiveAgentText
	cmd := workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, CallID: "call_1", Command: "sh -c 'echo hello; echo bye'",
		Cwd: "/repo", Status: workflows.StatusInProgress}
	b.emit(turnID, workflows.Event{Type: workflows.EventItemStarted, Item: &cmd})
	b.stream(turnID, threads.LiveChunk{Kind: out, CallID: "call_1", Stream: "stdout", Data: []byte("hel")},
		threads.LiveChunk{Kind: out, CallID: "call_9", Stream: "stdout", Data: []byte("other")})
	seen := c.until("item/commandExecution/outputDelta")
	b.stream(turnID, threads.LiveChunk{Kind: out, CallID: "call_1", Stream: "stdout", Offset: 3, Data: []byte("lo\n")})
	seen = append(seen, c.until("item/commandExecution/outputDelta")...)
	done := cmd
	code := 0
	done.Status, done.AggregatedOutput, done.ExitCode, done.DurationMs = workflows.StatusCompleted, "hello\nbye\n", &code, 5
	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &done})
	seen = append(seen, c.until("item/completed")...)

	const answer = "héllo world"
	b.stream(turnID, threads.LiveChunk{Kind: text, Step: 1, Data: []byte(answer[:2])}) // "h" and half of "é"
	seen = append(seen, c.until("item/agentMessage/delta")...)
	b.stream(turnID, threads.LiveChunk{Kind: text, Step: 1, Offset: 2, Data: []byte(answer[2:6])})
	seen = append(seen, c.until("item/agentMessage/delta")...)
	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_2", Type: workflows.ItemAgentMessage, Text: answer}})
	b.end(turnID, workflows.StatusCompleted, "")
	seen = append(seen, c.until("turn/completed")...)

	// Per item: the deltas in order, and where its item/started and
	// item/completed came.
	type trace struct {
		deltas           []string
		started, deltaAt []int
		completed        int
		final            string
	}
	items := map[string]*trace{}
	get := func(id string) *trace {
		if items[id] == nil {
			items[id] = &trace{completed: -1}
		}
		return items[id]
	}
	for i, n := range seen {
		p := params(n)
		switch n["method"] {
		case "item/started":
			it := p["item"].(map[string]any)
			get(it["id"].(string)).started = append(get(it["id"].(string)).started, i)
		case "item/completed":
			it := p["item"].(map[string]any)
			tr := get(it["id"].(string))
			tr.completed = i
			if s, ok := it["aggregatedOutput"].(string); ok {
				tr.final = s
			} else if s, ok := it["text"].(string); ok {
				tr.final = s
			}
		case "item/commandExecution/outputDelta", "item/agentMessage/delta":
			tr := get(p["itemId"].(string))
			tr.deltas, tr.deltaAt = append(tr.deltas, p["delta"].(string)), append(tr.deltaAt, i)
		}
	}
	msgID := turnID + "-msg-1"
	for id, want := range map[string][]string{"item_1": {"hel", "lo\n", "bye\n"}, msgID: {"h", "éllo", " world"}} {
		tr := items[id]
		if tr == nil {
			t.Fatalf("no notifications of %s in\n%s", id, strings.Join(methods(seen), "\n"))
		}
		if strings.Join(tr.deltas, "|") != strings.Join(want, "|") {
			t.Errorf("%s deltas %q, want %q", id, tr.deltas, want)
		}
		if strings.Join(tr.deltas, "") != tr.final {
			t.Errorf("%s deltas add up to %q, its final text is %q", id, strings.Join(tr.deltas, ""), tr.final)
		}
		if len(tr.started) != 1 || tr.started[0] > tr.deltaAt[0] || tr.completed < tr.deltaAt[len(tr.deltaAt)-1] {
			t.Errorf("%s: started at %v, deltas at %v, completed at %d", id, tr.started, tr.deltaAt, tr.completed)
		}
	}
	if items["item_2"] != nil {
		t.Errorf("the streamed message also went out as item_2: %+v", items["item_2"])
	}
	if items[msgID].final != answer {
		t.Errorf("message completed with %q", items[msgID].final)
	}
}

// Text a model call streamed that never became a message (the call
// failed) has its item completed with that text when the turn ends.
func TestLiveMessageWithoutItem(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "hi"}}})
	r, _ := c.response(rid)
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	b.emit(turnID, workflows.Event{Type: workflows.EventItemStarted, Item: &workflows.Item{ID: "item_0", Type: workflows.ItemReasoning}})
	b.stream(turnID, threads.LiveChunk{Kind: threads.LiveAgentText, Step: 1, Data: []byte("partial")})
	c.until("item/agentMessage/delta")
	b.end(turnID, workflows.StatusFailed, "model unavailable")
	var completed map[string]any
	for _, n := range c.until("turn/completed") {
		if n["method"] == "item/completed" {
			completed = params(n)["item"].(map[string]any)
		}
	}
	if completed == nil || completed["id"] != turnID+"-msg-1" || completed["text"] != "partial" {
		t.Fatalf("streamed message completed as %v", completed)
	}
}

// A write_stdin into a session streams what the session prints while it
// waits under the exec_command's item, after the terminal interaction,
// from the start of that call's output; output polled before the
// interaction is not sent again.
func TestLiveSessionOutputAfterTerminalInteraction(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "talk to it"}}})
	r, _ := c.response(rid)
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)

	session := workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, CallID: "call_1", Command: "python3", Cwd: "/repo", ProcessID: "1000"}
	b.emit(turnID, workflows.Event{Type: workflows.EventTerminalInteraction, Stdin: "print(6*7)\n", Item: &session})
	c.until("item/commandExecution/terminalInteraction")
	b.stream(turnID, threads.LiveChunk{Kind: threads.LiveCommandOutput, CallID: "call_1", Stream: "stdout", Data: []byte("42\n")})
	seen := c.until("item/commandExecution/outputDelta")
	p := params(seen[len(seen)-1])
	if p["itemId"] != "item_1" || p["delta"] != "42\n" {
		t.Fatalf("delta %v", p)
	}
	b.end(turnID, workflows.StatusCompleted, "")
	c.until("turn/completed")
}
