package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordApprovalStatus: a turn's approval waits and is approved; the turn
// tells its thread both times (the thread's waiting_for_approval status).
func recordApprovalStatus(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "ask once", Steps: []fakemodel.Step{
			{Shell: "touch approved.txt"},
			{Text: "approved and done"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.ApprovalPolicy = "untrusted"
	id := "approvalstatus-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "ask once"})
	if err != nil {
		t.Fatal(err)
	}
	err = threads.FollowTurn(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Type != workflows.EventApprovalRequested || e.Approval == nil {
			return
		}
		if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: id, ItemID: e.Approval.ItemID, Decision: workflows.DecisionApprove}); err != nil {
			t.Errorf("deciding: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "approved and done" {
		t.Fatalf("turn: %+v", res)
	}
	w.save(ctx, "approvalstatus", id)
}
