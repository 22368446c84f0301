package devtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// An interrupt that reaches a turn while the workflow task that ends it
// runs (its last model call answering inside that task, as a local
// activity) neither fails the task with UNHANDLED_COMMAND nor makes the
// call again: the answer is in, so the turn completes. Several threads,
// each interrupted the moment its last call reaches the model (one after
// another: threads started together are interrupted later, as the
// worker's tasks queue, and most interrupts then miss the window).
func TestInterruptDuringTheClosingTaskRepeatsNothing(t *testing.T) {
	const n = 4
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo first"},
		// Well within the budget a call waits in the workflow task.
		{Text: "done", DelayMs: 100},
	}}}})
	w.StartWorker(WorkerOptions{Name: "unhandled"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	for i := range n {
		func() {
			id := fmt.Sprintf("unhandled-%d", i)
			prompt := "thread " + id + " answers at once"
			resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
				workflows.StartTurnRequest{Prompt: prompt})
			if err != nil {
				t.Error(err)
				return
			}
			// The last call is in flight inside the turn's workflow task.
			for w.Model.Server.ArrivalsContaining(prompt) < 2 {
				if ctx.Err() != nil {
					t.Errorf("%s: the model was not asked twice", id)
					return
				}
				time.Sleep(time.Millisecond)
			}
			if err := threads.Interrupt(ctx, w.Client, id); err != nil {
				t.Error(err)
				return
			}
			res, err := threads.Outcome(ctx, w.Client, resp.TurnID)
			if err != nil {
				t.Error(err)
				return
			}
			if res.Status != workflows.StatusCompleted || res.FinalMessage != "done" {
				t.Errorf("%s: turn %s %q, want completed with the answer", id, res.Status, res.Error)
			}
			if got := w.Model.Server.ArrivalsContaining(prompt); got != 2 {
				t.Errorf("%s: the model was asked %d times, want 2 (one per step)", id, got)
			}
			for _, wf := range []string{id, resp.TurnID} {
				for _, e := range historyOf(t, w, wf) {
					if a := e.GetWorkflowTaskFailedEventAttributes(); a != nil {
						t.Errorf("%s: event %d: workflow task failed: %s", wf, e.GetEventId(), a.GetCause())
					}
					if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT {
						t.Logf("%s: event %d: workflow task timed out", wf, e.GetEventId())
					}
				}
			}
		}()
	}
}
