package mcpserver

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A model.retry event becomes Codex's stream_error message, and its text
// is what notifications/progress shows.
func TestRetryIsAStreamError(t *testing.T) {
	var m eventMapper
	e := workflows.Event{Type: workflows.EventModelRetry, Error: "provider p broke off its answer: overloaded",
		Retry: &workflows.ModelRetry{Attempt: 2, MaxAttempts: 6, DelayMs: 1000, Kind: workflows.RetryStream}}
	sent := m.messages(e)
	if len(sent) != 1 || sent[0].eventType() != "stream_error" {
		t.Fatalf("got %v, want one stream_error", sent)
	}
	out := []map[string]any{readBack(t, sent[0])}
	want := "retrying model call (attempt 2/6 in 1s): provider p broke off its answer: overloaded"
	if out[0]["message"] != want || summary(sent[0]) != want {
		t.Fatalf("message %q, summary %q, want %q", out[0]["message"], summary(sent[0]), want)
	}
	if out[0]["additional_details"] != e.Error {
		t.Fatalf("additional_details %v", out[0]["additional_details"])
	}
	info, _ := out[0]["codex_error_info"].(map[string]any)
	if _, ok := info["response_stream_disconnected"]; !ok {
		t.Fatalf("codex_error_info %v", out[0]["codex_error_info"])
	}
}
