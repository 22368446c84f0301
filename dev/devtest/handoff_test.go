package devtest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A model call slower than its budget in the workflow task is taken over,
// on the worker that started it, by a regular activity: the provider sees
// each call once, and a fast call is answered in the workflow task. (The
// taken-over call's text streams through that activity's heartbeats: see
// TestLiveTextOfAStreamingModelCall.)
func TestSlowModelCallIsTakenOverNotRepeated(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo quick"},
		{Text: "a slow answer, streamed", ChunkDelayMs: 150},
	}}}})
	w.StartWorker(WorkerOptions{Name: "handoff"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, res := w.RunTurn(ctx, w.Config(""), "one quick step, one slow")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "a slow answer, streamed" {
		t.Fatalf("turn %s: %q %s", res.Status, res.FinalMessage, res.Error)
	}
	if n := len(w.Model.Server.Requests()); n != 2 {
		t.Fatalf("the model was asked %d times, want 2 (one per step)", n)
	}
	var continued []string
	events := historyOf(t, w, res.TurnID)
	for _, e := range events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "CallModel" {
			continued = append(continued, a.GetTaskQueue().GetName())
		}
	}
	// Skills, then both model calls start in the workflow task (and the
	// command runs there, its record forgotten as the turn closes).
	want := []string{"DiscoverSkills", "CallModel", "ExecHere", "CallModel", "ForgetCommands"}
	if local := localActivities(t, events); !slices.Equal(local, want) {
		t.Fatalf("local activities %v, want %v", local, want)
	}
	// The slow one goes on on this worker's own queue (so may the quick
	// one, on a machine too loaded to answer it within the budget).
	if len(continued) == 0 || len(continued) > 2 {
		t.Fatalf("model calls continued as activities on %v, want the slow one", continued)
	}
	for _, q := range continued {
		if !strings.Contains(q, TaskQueue+"-calls-") {
			t.Fatalf("a model call continued on %s, want this worker's own queue", q)
		}
	}
}

// localActivities lists the types of the local activities in events, in
// the order of their markers.
func localActivities(t *testing.T, events []*historypb.HistoryEvent) []string {
	t.Helper()
	var types []string
	for _, e := range events {
		m := e.GetMarkerRecordedEventAttributes()
		if m == nil || m.GetMarkerName() != "LocalActivity" {
			continue
		}
		var data struct{ ActivityType string }
		p := m.GetDetails()["data"].GetPayloads()
		if len(p) == 0 {
			t.Fatalf("a local activity marker without data: %v", m)
		}
		if err := json.Unmarshal(p[0].GetData(), &data); err != nil {
			t.Fatalf("a local activity marker's data: %v", err)
		}
		types = append(types, data.ActivityType)
	}
	return types
}

// historyOf reads the events of a workflow's current run.
func historyOf(t *testing.T, w *World, workflowID string) []*historypb.HistoryEvent {
	t.Helper()
	it := w.Client.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// Interrupting a turn while a handed-off model call streams ends the turn
// at once, without waiting for the model: the taking activity is
// cancelled, and with it the call.
func TestInterruptDuringAHandedOffModelCall(t *testing.T) {
	const modelDelay = 30 * time.Second
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Text: "never read", DelayMs: int(modelDelay / time.Millisecond)},
	}}}})
	w.StartWorker(WorkerOptions{Name: "handoff"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	id := "handoff-interrupt-" + time.Now().Format("150405.000000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "a slow answer"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	interrupted := false
	res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Type == workflows.EventTurnStarted && !interrupted {
			interrupted = true
			if err := threads.Interrupt(ctx, w.Client, id); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res == nil {
		r := w.WaitTurn(ctx, id, resp.TurnID)
		res = &r
	}
	if res.Status != workflows.StatusInterrupted {
		t.Fatalf("turn %s (%s), want interrupted", res.Status, res.Error)
	}
	if took := time.Since(start); took >= modelDelay/2 {
		t.Fatalf("the turn ended after %s: it waited for the model", took)
	}
	var queues []string
	for _, e := range historyOf(t, w, resp.TurnID) {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "CallModel" {
			queues = append(queues, a.GetTaskQueue().GetName())
		}
	}
	if len(queues) != 1 || !strings.Contains(queues[0], TaskQueue+"-calls-") {
		t.Fatalf("model call activities on %v, want one taking over on the worker's own queue", queues)
	}
}
