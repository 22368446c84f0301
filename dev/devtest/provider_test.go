package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// Rate limits, server errors and dropped streams are retried (by the turn,
// see retries_test.go); client errors fail the turn at once with the
// provider's message.
func TestProviderErrors(t *testing.T) {
	cases := []struct {
		name      string
		step      fakemodel.Step
		status    string
		errPart   string
		wantCalls int
	}{
		{"429 is retried", fakemodel.Step{Text: "ok", FailStatus: 429, FailTimes: 2}, "completed", "", 3},
		{"500 is retried", fakemodel.Step{Text: "ok", FailStatus: 500, FailTimes: 1}, "completed", "", 2},
		{"dropped stream is retried", fakemodel.Step{Text: "ok", DropStream: true}, "completed", "", 2},
		{"400 fails at once", fakemodel.Step{Text: "ok", FailStatus: 400, FailTimes: 5}, "failed", "400", 1},
		{"401 fails at once", fakemodel.Step{Text: "ok", FailStatus: 401, FailTimes: 5}, "failed", "401", 1},
		{"404 fails at once", fakemodel.Step{Text: "ok", FailStatus: 404, FailTimes: 5}, "failed", "404", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{tc.step}}}})
			w.StartWorker(WorkerOptions{Name: "w"})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, res := w.RunTurn(ctx, w.Config(""), "hello")
			if res.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", res.Status, res.Error, tc.status)
			}
			if tc.errPart != "" && !strings.Contains(res.Error, tc.errPart) {
				t.Fatalf("error %q lacks %q", res.Error, tc.errPart)
			}
			if got := len(w.Model.Server.Requests()); got != tc.wantCalls {
				t.Fatalf("%d model requests, want %d", got, tc.wantCalls)
			}
		})
	}
}

// A provider whose key variable is unset fails the turn with a message
// naming the variable, before any request is sent.
func TestMissingAPIKeyNamesTheVariable(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "ok"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.Provider.EnvKey = "INTERPRETER_TEST_UNSET_KEY"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "hello")
	if res.Status != "failed" || !strings.Contains(res.Error, "INTERPRETER_TEST_UNSET_KEY") {
		t.Fatalf("got %s: %q", res.Status, res.Error)
	}
	if n := len(w.Model.Server.Requests()); n != 0 {
		t.Fatalf("%d requests sent without a key", n)
	}
}
