package devtest

import (
	"context"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordQuick: quick turns (thread.quick-turn): a reply the model answers
// at once, answered by the thread with its result; a reply whose first
// answer asks for a command, which the turn takes from the thread; a
// reply sent as soon as that turn's end was seen, which waits in the
// thread for the take-in and is then answered by the thread.
func recordQuick(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "QUICK-OPEN", Steps: []fakemodel.Step{{Text: "opened"}}},
		{Match: "QUICK-REPLY", Steps: []fakemodel.Step{{Text: "replied"}}},
		{Match: "QUICK-TOOL", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["echo","hi"]}`)}},
			{Text: "ran it"},
		}},
		{Match: "QUICK-AGAIN", Steps: []fakemodel.Step{{Text: "again"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	id, res := w.RunTurn(ctx, cfg, "QUICK-OPEN")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("open: %s %s", res.Status, res.Error)
	}
	w.awaitTakenIn(ctx, id)
	reply := func(prompt string) workflows.StartTurnResponse {
		resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: prompt, WantResult: true})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := reply("QUICK-REPLY"); r.Result == nil || r.Result.FinalMessage != "replied" {
		t.Fatalf("a one-step reply was not answered with its result: %+v", r.Result)
	}
	tool := reply("QUICK-TOOL")
	if tool.Result != nil {
		t.Fatalf("a reply that runs a command was answered at once: %+v", tool.Result)
	}
	if res := w.WaitTurn(ctx, id, tool.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "ran it" {
		t.Fatalf("tool turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	again := reply("QUICK-AGAIN")
	if again.Result == nil || again.Result.FinalMessage != "again" {
		t.Fatalf("a reply sent at the end of a turn was not answered with its result: %+v", again.Result)
	}
	awaitTurnClosed(ctx, t, w, again.TurnID)
	w.save(ctx, "quick", id)
}

// awaitTurnClosed waits until a turn's workflow has closed (a quick
// turn's starts after its thread answered).
func awaitTurnClosed(ctx context.Context, t *testing.T, w *World, turnID string) {
	t.Helper()
	for {
		d, err := w.Client.DescribeWorkflowExecution(ctx, turnID, "")
		if err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("turn %s did not close: %v", turnID, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
