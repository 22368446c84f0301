package appserver

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A model.retry event becomes Codex's error notification with willRetry
// set, valid against the reference schema, for each kind of failure.
func TestRetryIsAnErrorNotificationThatWillRetry(t *testing.T) {
	v := schema(t)
	tr := newTranslator("th", "th/turn-1", func() int64 { return 0 })
	for _, r := range []workflows.ModelRetry{
		{Attempt: 2, MaxAttempts: 5, DelayMs: 1000, Kind: workflows.RetryRequest},
		{Attempt: 3, MaxAttempts: 5, DelayMs: 2000, Kind: workflows.RetryRequest, HTTPStatus: 503},
		{Attempt: 2, MaxAttempts: 6, DelayMs: 1000, Kind: workflows.RetryStream},
		{Attempt: 4, MaxAttempts: 5, DelayMs: 4000, Kind: workflows.RetryRequest, HTTPStatus: 429},
	} {
		out := tr.translate(workflows.Event{Type: workflows.EventModelRetry, Error: "cannot reach provider p: connection refused", Retry: &r})
		if len(out) != 1 || out[0].Method != "error" {
			t.Fatalf("got %+v, want one error notification", out)
		}
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": out[0].Method, "params": out[0].Params})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Check("ServerNotification", line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		var n struct {
			Params struct {
				ThreadID, TurnID string
				WillRetry        bool
				Error            struct{ Message, AdditionalDetails string }
			}
		}
		if err := json.Unmarshal(line, &n); err != nil {
			t.Fatal(err)
		}
		p := n.Params
		if !p.WillRetry || p.ThreadID != "th" || p.TurnID != "th/turn-1" || p.Error.AdditionalDetails != "cannot reach provider p: connection refused" {
			t.Fatalf("params %+v", p)
		}
		if want := workflows.RetryText(workflows.Event{Error: "cannot reach provider p: connection refused", Retry: &r}); p.Error.Message != want {
			t.Fatalf("message %q, want %q", p.Error.Message, want)
		}
	}
}
