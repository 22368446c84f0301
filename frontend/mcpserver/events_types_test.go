package mcpserver

import (
	"encoding/json"
	"testing"
)

// A typed delta is written as the map literal of live.go writes it, and
// is told apart as the map is.
func TestTypedDeltasAreWrittenAsTheMapsWere(t *testing.T) {
	for _, c := range []struct{ typed, literal msg }{
		{event(agentMessageDeltaEvent{Delta: "a<b"}), msg{"type": "agent_message_delta", "delta": "a<b"}},
		{event(agentReasoningDeltaEvent{Delta: "hm"}), msg{"type": "agent_reasoning_delta", "delta": "hm"}},
		{event(execCommandOutputDeltaEvent{CallID: "c", Stream: "stdout", Chunk: "eA=="}),
			msg{"type": "exec_command_output_delta", "call_id": "c", "stream": "stdout", "chunk": "eA=="}},
	} {
		got, err := json.Marshal(c.typed)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(c.literal)
		if string(got) != string(want) {
			t.Errorf("typed %s, map %s", got, want)
		}
		if isDelta(c.typed) != isDelta(c.literal) || summary(c.typed) != summary(c.literal) {
			t.Errorf("%s: isDelta %v/%v, summary %q/%q", want, isDelta(c.typed), isDelta(c.literal), summary(c.typed), summary(c.literal))
		}
	}
}
