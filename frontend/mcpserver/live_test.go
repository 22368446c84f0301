package mcpserver

import (
	"context"
	"slices"
	"testing"

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
		text := func(step, offset int, b []byte) threads.LiveChunk {
			return threads.LiveChunk{Kind: threads.LiveAgentText, Step: step, Offset: int64(offset), Data: b}
		}
		b := []byte(answer)
		turn.live = [][]threads.LiveChunk{
			{text(1, 0, b[:2])}, // "h" and half of "é"
			{text(1, 2, b[2:7])},
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
