package devtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// watchMarker is what each command of the watched turn prints: the test
// counts how often it is in the turn's history.
const watchMarker = "watch-marker-7f3a"

// fourStepScript: three steps that each run a command printing the
// marker, then the answer; twice (one turn watched, one not).
func fourStepScript() *fakemodel.Script {
	step := fakemodel.Step{ToolCalls: []fakemodel.ToolCall{{Name: "shell",
		Arguments: json.RawMessage(`{"command":["echo","` + watchMarker + `"]}`)}}, Repeat: 3}
	turn := fakemodel.Turn{Steps: []fakemodel.Step{step, {Text: "done"}}}
	return &fakemodel.Script{Turns: []fakemodel.Turn{turn, turn}}
}

// turnHistory reads a turn's history: its event count and every event
// marshalled (payloads included), for counting a marker in.
func turnHistory(t *testing.T, w *World, turnID string) (events int, raw []byte) {
	t.Helper()
	it := w.Client.GetWorkflowHistory(context.Background(), turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		events++
		raw = append(raw, b...)
	}
	return events, raw
}

// Following a turn adds at most a small constant to its history, whatever
// the number of followers and steps, and copies no item payload into it:
// a 4-step turn followed from its start by two readers has no more events
// than the same turn with nobody watching plus a few, and a command's
// output is in it no more often.
func TestFollowingATurnLeavesItsHistoryAlone(t *testing.T) {
	w := Start(t, fourStepScript())
	w.StartWorker(WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Unwatched: nobody reads the log, the result is awaited.
	_, res := w.RunTurn(ctx, w.Config(""), "run it three times")
	if res.Status != workflows.StatusCompleted || res.Steps != 4 {
		t.Fatalf("unwatched turn: %s after %d steps: %s", res.Status, res.Steps, res.Error)
	}
	plainEvents, plainRaw := turnHistory(t, w, res.TurnID)

	// Watched by two followers from the start.
	id := fmt.Sprintf("watched-%d", time.Now().UnixNano())
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "run it three times"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	seen := make([]int, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
				if e.Seq == seen[i]+1 {
					seen[i] = e.Seq
				}
			})
		}()
	}
	wg.Wait()
	got := w.WaitTurn(ctx, id, resp.TurnID)
	if got.Status != workflows.StatusCompleted || got.Steps != 4 {
		t.Fatalf("watched turn: %s after %d steps: %s", got.Status, got.Steps, got.Error)
	}
	page := readAll(t, w, resp.TurnID)
	for i := range 2 {
		if errs[i] != nil || seen[i] != page.Last {
			t.Fatalf("follower %d saw events 1..%d of %d in order (err %v)", i, seen[i], page.Last, errs[i])
		}
	}
	watchedEvents, watchedRaw := turnHistory(t, w, resp.TurnID)

	plainMarks, watchedMarks := bytes.Count(plainRaw, []byte(watchMarker)), bytes.Count(watchedRaw, []byte(watchMarker))
	t.Logf("history events: unwatched %d, watched by two %d; marker copies: unwatched %d, watched %d",
		plainEvents, watchedEvents, plainMarks, watchedMarks)
	if watchedEvents > plainEvents+6 {
		t.Errorf("the watched turn's history has %d events, the unwatched one's %d: following adds more than a small constant", watchedEvents, plainEvents)
	}
	if watchedMarks > plainMarks {
		t.Errorf("a command's output is %d times in the watched turn's history, %d times in the unwatched one's: following copies payloads", watchedMarks, plainMarks)
	}
}
