package devtest

import (
	"bytes"
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A running command's output reaches a reader in another client while the
// command runs, through its heartbeat details: in order, without gaps, under
// the call id of its command item. Each line is a wall-clock stamp in
// nanoseconds, so the test also logs how late each line was seen.
func TestLiveOutputOfARunningCommand(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "for i in 1 2 3 4 5 6 7 8; do date +%s%N; sleep 0.25; done"}, {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "live"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "live-thread"
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "stream"})
	if err != nil {
		t.Fatal(err)
	}
	reader := w.Dial() // a client of its own, as a front end in another process
	live := threads.NewLiveOutput(reader, resp.TurnID)
	ended := make(chan workflows.TurnResult, 1)
	go func() { ended <- w.WaitTurn(ctx, id, resp.TurnID) }()

	var got bytes.Buffer
	var chunks int
	var lateness []time.Duration
	callIDs := map[string]bool{}
	var res workflows.TurnResult
poll:
	for {
		select {
		case res = <-ended:
			break poll
		case <-time.After(50 * time.Millisecond):
		}
		out, err := live.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for _, ch := range out {
			if ch.Skipped != 0 || ch.Offset != int64(got.Len()) || ch.Stream != "stdout" {
				t.Fatalf("chunk at %d (skipped %d, stream %s) after %d bytes", ch.Offset, ch.Skipped, ch.Stream, got.Len())
			}
			chunks++
			callIDs[ch.CallID] = true
			got.Write(ch.Data)
			for _, line := range strings.Fields(string(ch.Data)) {
				if ns, err := strconv.ParseInt(line, 10, 64); err == nil {
					lateness = append(lateness, now.Sub(time.Unix(0, ns)))
				}
			}
		}
	}
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	page := readAll(t, w, resp.TurnID)
	var item *workflows.Item
	for _, e := range page.Events {
		if e.Type == workflows.EventItemCompleted && e.Item.Type == workflows.ItemCommandExecution {
			item = e.Item
		}
	}
	if item == nil || item.CallID == "" {
		t.Fatalf("no command item with a call id in %+v", page.Events)
	}
	if len(callIDs) != 1 || !callIDs[item.CallID] {
		t.Fatalf("live output came under call ids %v, want %s", callIDs, item.CallID)
	}
	// The end of the output may come after the last heartbeat: the command
	// item carries it whole.
	if chunks < 2 || got.Len() == 0 || !strings.HasPrefix(item.AggregatedOutput, got.String()) {
		t.Fatalf("%d chunks, %q; the command wrote %q", chunks, got.String(), item.AggregatedOutput)
	}
	sort.Slice(lateness, func(i, j int) bool { return lateness[i] < lateness[j] })
	t.Logf("%d chunks, %d of 8 lines seen live; lateness median %v, max %v",
		chunks, len(lateness), lateness[len(lateness)/2].Round(time.Millisecond), lateness[len(lateness)-1].Round(time.Millisecond))
}

func readAll(t *testing.T, w *World, turnID string) workflows.EventsPage {
	t.Helper()
	v, err := w.Client.QueryWorkflow(context.Background(), turnID, "", workflows.QueryEvents, workflows.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var p workflows.EventsPage
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A model call that streams its answer slowly shows its message text to a
// reader in another client while it streams, under its step.
func TestLiveTextOfAStreamingModelCall(t *testing.T) {
	const answer = "the streamed answer, piece by piece"
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Text: answer, ChunkDelayMs: 150},
	}}}})
	w.StartWorker(WorkerOptions{Name: "live"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "live-text-thread"
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "stream text"})
	if err != nil {
		t.Fatal(err)
	}
	live := threads.NewLiveOutput(w.Dial(), resp.TurnID)
	ended := make(chan workflows.TurnResult, 1)
	go func() { ended <- w.WaitTurn(ctx, id, resp.TurnID) }()
	var got strings.Builder
	chunks := 0
	var res workflows.TurnResult
poll:
	for {
		select {
		case res = <-ended:
			break poll
		case <-time.After(50 * time.Millisecond):
		}
		out, err := live.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range out {
			if ch.Kind != threads.LiveAgentText || ch.Step != 1 || ch.Skipped != 0 || ch.Offset != int64(got.Len()) {
				t.Fatalf("chunk %+v after %d bytes", ch, got.Len())
			}
			chunks++
			got.Write(ch.Data)
		}
	}
	if res.Status != workflows.StatusCompleted || res.FinalMessage != answer {
		t.Fatalf("turn %s: %q %s", res.Status, res.FinalMessage, res.Error)
	}
	if chunks < 2 || !strings.HasPrefix(answer, got.String()) || got.Len() == 0 {
		t.Fatalf("%d chunks of text %q, want pieces of %q", chunks, got.String(), answer)
	}
	t.Logf("%d chunks, %d of %d bytes seen while streaming", chunks, got.Len(), len(answer))
}
