package mcpserver

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// While a command item runs, its new output goes out as
// exec_command_output_delta (Codex's shape: call_id, stream, chunk in
// base64) between exec_command_begin and exec_command_end; output of other
// calls is not mixed in; the agent message comes as a delta first.
func TestCommandOutputDeltas(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn {
		turn := completedTurn("the answer")
		turn.events[1].Item.CallID = "call_1"
		turn.events[2].Item.CallID = "call_1"
		out := threads.LiveCommandOutput
		turn.live = [][]threads.LiveChunk{
			{{Kind: out, CallID: "call_1", Stream: "stdout", Data: []byte("hel")}, {Kind: out, CallID: "call_9", Stream: "stdout", Data: []byte("other")}},
			nil,
			{{Kind: out, CallID: "call_1", Stream: "stdout", Offset: 3, Data: []byte("lo\n")}},
		}
		turn.drained, turn.holdAfter = make(chan struct{}), 2 // the command's item.started
		return turn
	})
	res := h.call(context.Background(), ToolCodex, map[string]any{"prompt": "run"})
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	want := []string{"session_configured", "task_started", "exec_command_begin", "exec_command_output_delta", "exec_command_output_delta",
		"exec_command_end", "agent_message_delta", "agent_message", "token_count", "task_complete"}
	if got := h.eventTypes(); !slices.Equal(got, want) {
		t.Fatalf("codex/event types %v, want %v", got, want)
	}
	evs := h.rec.notices("codex/event")
	var chunks []string
	for _, n := range evs[3:5] {
		m := n.Params["msg"].(map[string]any)
		if m["call_id"] != "item_1" || m["stream"] != "stdout" {
			t.Errorf("delta %v, want call_id item_1 on stdout", m)
		}
		chunks = append(chunks, m["chunk"].(string))
	}
	if !slices.Equal(chunks, []string{"aGVs", "bG8K"}) { // "hel", "lo\n"
		t.Errorf("chunks %v", chunks)
	}
	if d := evs[6].Params["msg"].(map[string]any); d["delta"] != "the answer" {
		t.Errorf("agent_message_delta %v", d)
	}
}

// Text a model call streams goes out as agent_message_delta while it
// streams (a character cut between two polls waits for its end); the
// agent_message's own delta carries only the rest.
func TestAgentMessageDeltas(t *testing.T) {
	const answer = "héllo world"
	h := newHarness(t, func(string) *fakeTurn {
		turn := &fakeTurn{
			events: []workflows.Event{
				{Type: workflows.EventTurnStarted},
				{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemAgentMessage, Text: answer}},
				{Type: workflows.EventTurnCompleted},
			},
			result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: answer},
		}
		text := func(step int, b []byte) threads.LiveChunk {
			return threads.LiveChunk{Kind: threads.LiveAgentText, Step: step, Data: b}
		}
		b := []byte(answer)
		turn.live = [][]threads.LiveChunk{
			{text(1, b[:2])}, // "h" and half of "é"
			{text(1, b[2:7])},
		}
		turn.drained, turn.holdAfter = make(chan struct{}), 1
		return turn
	})
	res := h.call(context.Background(), ToolCodex, map[string]any{"prompt": "talk"})
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	var deltas []string
	for _, n := range h.rec.notices("codex/event") {
		m := n.Params["msg"].(map[string]any)
		switch m["type"] {
		case "agent_message_delta":
			deltas = append(deltas, m["delta"].(string))
		case "agent_message":
			if m["message"] != answer {
				t.Errorf("agent_message %v", m)
			}
			deltas = append(deltas, "|")
		}
	}
	if want := []string{"h", "éllo ", "world", "|"}; !slices.Equal(deltas, want) {
		t.Errorf("deltas then message: %q, want %q", deltas, want)
	}
}

// countingLive counts polls and never has news.
type countingLive struct {
	mu    sync.Mutex
	polls int
}

func (c *countingLive) Poll(context.Context) ([]threads.LiveChunk, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	return nil, nil
}

func (c *countingLive) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// liveBackend is a Backend whose Live is a countingLive.
type liveBackend struct {
	Backend
	live *countingLive
}

func (b liveBackend) Live(string) LiveReader { return b.live }

// While the turn waits for an approval nothing runs, so nothing is
// polled; once it is resolved polling resumes, and slows down after a
// while without news.
func TestLivePollingPausesForApprovals(t *testing.T) {
	reader := &countingLive{}
	s := New(liveBackend{live: reader}, Options{LivePoll: time.Millisecond})
	l := &livePoller{c: &call{h: &handlers{s: s, conn: newCodexConn()}}, turnID: "th/turn-1"}
	ctx := context.Background()
	approval := &workflows.Approval{ItemID: "item_1", Kind: "command"}
	l.handle(ctx, workflows.Event{Type: workflows.EventApprovalRequested, Approval: approval}, nil)
	l.start(ctx)
	defer l.stop()
	time.Sleep(50 * time.Millisecond) // fifty ticks in which no poll may happen
	if n := reader.count(); n != 0 {
		t.Fatalf("%d polls while an approval was pending", n)
	}
	l.handle(ctx, workflows.Event{Type: workflows.EventApprovalResolved, Approval: approval}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for reader.count() < threads.LiveQuietPolls+20 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d polls after the approval was resolved", reader.count())
		}
		time.Sleep(time.Millisecond)
	}
	// Past quietPolls empty polls, one tick in ten polls.
	l.mu.Lock()
	quiet := l.pace.Quiet()
	l.mu.Unlock()
	if polls := reader.count(); polls >= quiet-5 {
		t.Errorf("%d polls in %d quiet ticks: no slowing down", polls, quiet)
	}
}
