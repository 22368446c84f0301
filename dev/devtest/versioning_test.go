package devtest

import (
	"context"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/worker"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A rolling upgrade: a turn begun on build b1 finishes on b1's worker
// while b2, made current as it starts, takes a turn begun after it.
func TestRollingUpgradeKeepsATurnOnItsBuild(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "old", Steps: []fakemodel.Step{{Shell: "sleep 2; echo slept"}, {Text: "old done"}}},
		{Match: "new", Steps: []fakemodel.Step{{Text: "new done"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "worker-b1", Versioning: &worker.Versioning{BuildID: "b1"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cfg := w.Config("")
	cfg.ModelCalls = workflows.ModelCallsActivity
	old, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: "upgrade-old", TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "old"})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the command runs: the turn is b1's from its first task.
	fctx, stop := context.WithCancel(ctx)
	_ = threads.FollowTurn(fctx, w.Client, old.TurnID, 0, func(e workflows.Event) {
		if e.Type == workflows.EventItemStarted && e.Item != nil && e.Item.Type == workflows.ItemCommandExecution {
			stop()
		}
	})
	stop()
	b2 := w.StartWorker(WorkerOptions{Name: "worker-b2", Versioning: &worker.Versioning{BuildID: "b2", Promote: true}})
	if !b2.Current || b2.PromoteErr != nil {
		t.Fatalf("b2 not made current: %v", b2.PromoteErr)
	}
	_, res := w.RunTurn(ctx, cfg, "new")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("new turn: %s %s", res.Status, res.Error)
	}
	oldRes := w.WaitTurn(ctx, "upgrade-old", old.TurnID)
	if oldRes.Status != workflows.StatusCompleted || oldRes.FinalMessage != "old done" {
		t.Fatalf("old turn: %s %q %s", oldRes.Status, oldRes.FinalMessage, oldRes.Error)
	}
	for _, tc := range []struct{ turn, build, worker string }{{old.TurnID, "b1", "worker-b1"}, {res.TurnID, "b2", "worker-b2"}} {
		d, err := w.Client.DescribeWorkflowExecution(ctx, tc.turn, "")
		if err != nil {
			t.Fatal(err)
		}
		vi := d.GetWorkflowExecutionInfo().GetVersioningInfo()
		if vi.GetBehavior() != enumspb.VERSIONING_BEHAVIOR_PINNED || vi.GetDeploymentVersion().GetBuildId() != tc.build {
			t.Fatalf("turn %s: behavior %s, build %q; want pinned to %s", tc.turn, vi.GetBehavior(), vi.GetDeploymentVersion().GetBuildId(), tc.build)
		}
		for typ, ids := range activityWorkers(t, w, tc.turn) {
			if typ != "CallModel" {
				continue
			}
			for _, id := range ids {
				if id != tc.worker {
					t.Fatalf("turn %s: a model call ran on %s, want %s", tc.turn, id, tc.worker)
				}
			}
		}
	}
}
