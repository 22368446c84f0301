package mcpserver

import (
	"encoding/json"
	"testing"
)

// A typed event is written with its "type" and its keys in sorted order,
// byte for byte as the map literals the deltas were once built from.
func TestTypedDeltasAreWrittenAsTheMapsWere(t *testing.T) {
	for _, c := range []struct {
		typed   msg
		literal map[string]any
	}{
		{agentMessageDeltaEvent{Delta: "a<b"}, map[string]any{"type": "agent_message_delta", "delta": "a<b"}},
		{agentReasoningDeltaEvent{Delta: "hm"}, map[string]any{"type": "agent_reasoning_delta", "delta": "hm"}},
		{execCommandOutputDeltaEvent{CallID: "c", Stream: "stdout", Chunk: "eA=="},
			map[string]any{"type": "exec_command_output_delta", "call_id": "c", "stream": "stdout", "chunk": "eA=="}},
	} {
		got, err := json.Marshal(wireEvent{c.typed})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(c.literal)
		if string(got) != string(want) {
			t.Errorf("typed %s, map %s", got, want)
		}
		if c.typed.eventType() != c.literal["type"] {
			t.Errorf("%s: eventType %q", want, c.typed.eventType())
		}
	}
	if !isDelta(agentMessageDeltaEvent{}) || !isDelta(execCommandOutputDeltaEvent{}) || isDelta(agentReasoningDeltaEvent{}) {
		t.Errorf("isDelta tells the deltas apart wrongly")
	}
}

// A codex/event notification's params are written as the map they were
// built from: _meta, id, msg, each object's keys sorted.
func TestCodexEventParamsAreWrittenAsTheMapWas(t *testing.T) {
	id := json.RawMessage(`"call-1"`)
	got, err := json.Marshal(codexEventParams{Meta: codexEventMeta{RequestID: id, ThreadID: "th"}, ID: "th/turn-1",
		Msg: wireEvent{agentMessageDeltaEvent{Delta: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(map[string]any{
		"_meta": map[string]any{"requestId": id, "threadId": "th"},
		"id":    "th/turn-1",
		"msg":   map[string]any{"type": "agent_message_delta", "delta": "x"},
	})
	if string(got) != string(want) {
		t.Errorf("typed %s, map %s", got, want)
	}
}
