package devtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A reader that follows a turn from its start sees every event once, in
// order, across the turn's continue-as-new runs, and learns the result
// with the last events; a reader that comes after the end gets the same
// tail from the closed run's result.
func TestFollowTurnAcrossContinueAsNew(t *testing.T) {
	const steps = 12
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(`{"command":["echo","step"]}`)}}, Repeat: steps},
		{Text: "followed to the end"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	// A few steps per run: a step of local work adds about two events.
	cfg.HistoryEventsCAN = 10
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := fmt.Sprintf("follow-%d", time.Now().UnixNano())
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "many steps"})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	var last workflows.Event
	res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		seqs = append(seqs, e.Seq)
		last = e
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		if s != i+1 {
			t.Fatalf("event %d has seq %d: events were skipped or repeated (%v)", i, s, seqs)
		}
	}
	if last.Type != workflows.EventTurnCompleted {
		t.Fatalf("the last event is %s, want %s", last.Type, workflows.EventTurnCompleted)
	}
	want := w.WaitTurn(ctx, id, resp.TurnID)
	if want.Status != workflows.StatusCompleted || want.Steps != steps+1 {
		t.Fatalf("turn %s after %d steps: %s", want.Status, want.Steps, want.Error)
	}
	runs, err := w.ChainStats(ctx, resp.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 3 {
		t.Fatalf("the turn ran in %d runs; the test needs it to continue as new at least twice", len(runs))
	}
	if res == nil || res.Status != workflows.StatusCompleted || res.FinalMessage != "followed to the end" {
		t.Fatalf("the result that came with the end: %+v", res)
	}

	// After the end: the last events, from the closed run's result.
	after := len(seqs) - 2
	var late []workflows.Event
	res, err = threads.Follow(ctx, w.Client, resp.TurnID, after, func(e workflows.Event) { late = append(late, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(late) != 2 || late[0].Seq != after+1 || late[1].Type != workflows.EventTurnCompleted {
		t.Fatalf("a late reader got %d events: %+v", len(late), late)
	}
	if res == nil || res.FinalMessage != "followed to the end" {
		t.Fatalf("a late reader's result: %+v", res)
	}
}
