package devtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordBgterm: a turn leaves two sessions running; a person terminates
// one (thread/backgroundTerminals/terminate), the other's exit wakes the
// idle thread, which runs a turn of its own.
func recordBgterm(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "BG-START", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("exec_command", `{"cmd":"echo building; while [ ! -f go ]; do sleep 0.1; done; echo built; exit 7","yield_time_ms":250}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("exec_command", `{"cmd":"while true; do sleep 0.2; done","yield_time_ms":250}`)}},
			{Text: "both left running"},
		}},
		{Match: "background_terminal_notification", Steps: []fakemodel.Step{{Text: "the build exited 7"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.BackgroundTerminals = &workflows.BackgroundTerminalsConfig{Wakeup: true}
	id, res := w.RunTurn(ctx, cfg, "BG-START build and serve")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("first turn: %s %s", res.Status, res.Error)
	}
	// The thread lists the turn's sessions once it has taken in its end.
	w.awaitTakenIn(ctx, id)
	if list, err := threads.BackgroundTerminals(ctx, w.Client, id); err != nil || len(list) != 2 {
		t.Fatalf("background terminals: %v %v", list, err)
	}
	if ok, err := threads.TerminateTerminal(ctx, w.Client, id, "1001"); err != nil || !ok {
		t.Fatalf("terminate: %v %v", ok, err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		v, err := threads.Read(ctx, w.Client, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Turns) == 2 && v.RunningTurn == "" {
			if v.Turns[1].Status != workflows.StatusCompleted || v.Turns[1].FinalMessage != "the build exited 7" {
				t.Fatalf("wake-up turn: %+v", v.Turns[1])
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no wake-up turn: %+v", v.Turns)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if list, err := threads.BackgroundTerminals(ctx, w.Client, id); err != nil || len(list) != 0 {
		t.Fatalf("background terminals after: %v %v", list, err)
	}
	w.save(ctx, "bgterm", id)
}
