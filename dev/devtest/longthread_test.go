package devtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// A 300-step turn with 20 KB of output per step stays within Temporal's
// limits: model calls carry a transcript reference, not the transcript;
// tool output is cut before it enters history; the turn continues as new
// and the conversation stays whole across runs.
func TestLongTurnStaysWithinHistoryLimits(t *testing.T) {
	steps := longSteps()
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(
			`{"command":["bash","-c","head -c 20000 /dev/zero | tr '\\0' x"]}`)}}, Repeat: steps},
		{Text: "all steps done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	// Steps that run in the workflow task (local model calls and
	// commands) add about three events each: 500 makes a few runs.
	cfg.HistoryEventsCAN = 500
	// About history limits: keep the whole conversation (its ~750k tokens
	// by the fake model's count would otherwise be compacted).
	cfg.AutoCompactTokenLimit = -1
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "run many steps")
	if res.Status != "completed" || res.FinalMessage != "all steps done" || res.Steps != steps+1 {
		t.Fatalf("turn %s after %d steps: %q %s", res.Status, res.Steps, res.FinalMessage, res.Error)
	}
	runs, err := w.ChainStats(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 2 {
		t.Fatalf("turn never continued as new (%d run)", len(runs))
	}
	total := 0
	for i, r := range runs {
		t.Logf("run %d: %d events, %.2f MB history, largest event %.1f KB", i+1, r.Events, float64(r.Bytes)/1e6, float64(r.MaxPayload)/1e3)
		fmt.Printf("long-thread run %d: events=%d history_bytes=%d max_event_bytes=%d (%s)\n", i+1, r.Events, r.Bytes, r.MaxPayload, r.MaxType)
		total += r.Bytes
		if r.Events > 51200 || r.Bytes > 50<<20 || r.MaxPayload > 2<<20 {
			t.Errorf("run %d exceeds a limit: %+v", i+1, r)
		}
		// Far below the limits: a regression to passing the transcript per
		// call would grow this quadratically.
		if r.Bytes > 8<<20 {
			t.Errorf("run %d history is %d bytes: transcripts are leaking into history", i+1, r.Bytes)
		}
	}
	t.Logf("total history %.2f MB over %d runs", float64(total)/1e6, len(runs))
	last, _ := w.Model.Server.LastRequest()
	if got := strings.Count(string(last.Body), `"type":"function_call_output"`); got != steps {
		t.Fatalf("last model call carried %d tool outputs, want %d: the conversation was not kept whole", got, steps)
	}
	if !strings.Contains(string(last.Body), "run many steps") {
		t.Fatal("last model call lost the user prompt")
	}
}

// longSteps is 300, or INTERPRETER_LONG_STEPS for a quicker look.
func longSteps() int {
	if n, err := strconv.Atoi(os.Getenv("INTERPRETER_LONG_STEPS")); err == nil && n > 0 {
		return n
	}
	return 300
}
