package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordAutomation: an automation's schedule fired twice by hand, each
// run a turn of the automation's own thread (the second turn sees the
// first), and a command job.
func recordAutomation(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "AUTO-TICK", Steps: []fakemodel.Step{{Text: "tick handled"}}}}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	spec := workflows.AutomationSpec{Name: "rec", Prompt: "AUTO-TICK report", TaskQueue: TaskQueue, Config: w.Config("")}
	if err := threads.AddAutomation(ctx, w.Client, spec, threads.When{Every: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if first := fireAndWait(ctx, t, w, "rec", 1); len(first) != 1 {
		t.Fatalf("first firing: %d runs", len(first))
	}
	runs := fireAndWait(ctx, t, w, "rec", 2)
	for i, r := range runs {
		if r.Status != workflows.StatusCompleted || r.Result.ThreadID != workflows.AutomationThreadID("rec") || r.Result.FinalMessage != "tick handled" {
			t.Fatalf("run %d: %+v %+v", i, r, r.Result)
		}
	}
	if runs[0].Result.TurnID == runs[1].Result.TurnID {
		t.Fatalf("both runs are turn %s: %+v", runs[0].Result.TurnID, runs)
	}
	cmd := workflows.AutomationSpec{Name: "rec-cmd", Command: `echo "config at $MCPORTER_CONFIG"`, TaskQueue: TaskQueue, Config: w.Config("")}
	if err := threads.AddAutomation(ctx, w.Client, cmd, threads.When{Every: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	job := fireAndWait(ctx, t, w, "rec-cmd", 1)
	if r := job[0].Result; r.Status != workflows.StatusCompleted || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("command job: %+v", r)
	}
	w.save(ctx, "automation", workflows.AutomationThreadID("rec"))
	w.saveChain(ctx, "automation-run-1", runs[0].WorkflowID)
	w.saveChain(ctx, "automation-run-2", runs[1].WorkflowID)
	w.saveChain(ctx, "automation-command-run", job[0].WorkflowID)
	for _, name := range []string{"rec", "rec-cmd"} {
		if err := threads.RemoveAutomation(ctx, w.Client, name); err != nil {
			t.Fatal(err)
		}
	}
}

// fireAndWait fires the automation now and waits until it has n
// finished runs; it returns them.
func fireAndWait(ctx context.Context, t *testing.T, w *World, name string, n int) []threads.AutomationRunInfo {
	t.Helper()
	if _, err := threads.TriggerAutomation(ctx, w.Client, name); err != nil {
		t.Fatal(err)
	}
	for {
		a, err := threads.ShowAutomation(ctx, w.Client, name)
		if err != nil {
			t.Fatal(err)
		}
		var done []threads.AutomationRunInfo
		for _, r := range a.Runs {
			if r.Result != nil {
				done = append(done, r)
			}
		}
		if len(done) >= n {
			return done
		}
		if ctx.Err() != nil {
			t.Fatalf("automation %s: %d runs finished, want %d: %+v", name, len(done), n, a)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
