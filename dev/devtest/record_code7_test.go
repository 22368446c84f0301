package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TestRecordCode7Histories records the paths of turn code 7: a quiet
// command stopped by an interrupt through StopCommand, then a turn whose
// command completes (its 20 s heartbeat timeout) and whose thread and
// turn carry their task-queue priority. With -record it writes the
// code7-* files; without, it checks that the scenario runs.
func TestRecordCode7Histories(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "quiet", Steps: []fakemodel.Step{{Shell: "exec sleep 58.765"}, {Text: "never read"}}},
		{Match: "talk", Steps: []fakemodel.Step{{Shell: "echo hello"}, {Text: "said hello"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := "code7-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	awaitCommandsRunning(ctx, t, w, []string{resp.TurnID})
	if err := threads.Interrupt(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusInterrupted {
		t.Fatalf("quiet turn: %s %s", res.Status, res.Error)
	}
	next, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, next.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "said hello" {
		t.Fatalf("talk turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	w.save(ctx, "code7", id)
}
