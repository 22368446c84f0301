package mcpserver

import (
	"context"
	"slices"
	"testing"

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
		turn.live = [][]workflows.LiveChunk{
			{{CallID: "call_1", Stream: "stdout", Data: []byte("hel")}, {CallID: "call_9", Stream: "stdout", Data: []byte("other")}},
			nil,
			{{CallID: "call_1", Stream: "stdout", Offset: 3, Data: []byte("lo\n")}},
		}
		turn.drained = make(chan struct{})
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
