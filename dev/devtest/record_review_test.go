package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordReview: a review turn as the app-server's review/start sends it
// (the review instructions as the turn's mode, the target in its prompt):
// the model reads the change with a command and answers with its JSON
// findings; then an ordinary turn, which has no review instructions.
func recordReview(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "start here", Steps: []fakemodel.Step{{Text: "ready"}}},
		{Match: "Review the uncommitted changes", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["git","status","--short"]}`)}},
			{Text: `{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Nothing to flag.","overall_confidence_score":0.9}`},
		}},
		{Match: "after the review", Steps: []fakemodel.Step{{Text: "after done"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, res := w.RunTurn(ctx, w.Config(""), "start here")
	if res.Status != "completed" {
		t.Fatalf("first turn: %s %s", res.Status, res.Error)
	}
	review := workflows.StartTurnRequest{Prompt: "Review the uncommitted changes in this repository. Report prioritized, actionable findings.",
		Mode: &workflows.TurnMode{Name: "review", Instructions: workflows.ReviewInstructions}}
	for _, req := range []workflows.StartTurnRequest{review, {Prompt: "after the review"}} {
		resp, err := threads.Reply(ctx, w.Client, id, req)
		if err != nil {
			t.Fatal(err)
		}
		if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != "completed" {
			t.Fatalf("%q: %s %s", req.Prompt, res.Status, res.Error)
		}
	}
	if n := len(w.Model.Server.RequestsContaining("# Code review")); n != 2 {
		t.Fatalf("%d model requests carry the review instructions, want the review's 2", n)
	}
	w.save(ctx, "review", id)
}
