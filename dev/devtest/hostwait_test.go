package devtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A thread whose workspace host has no worker says so within seconds and,
// after temporal.host_wait, fails: it does not wait out the turn timeout.
func TestTurnOnAHostWithoutWorkerWarnsThenFails(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo never-ran > ran.txt"}, {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "worker-a", HostQueue: "host-a"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	cfg := w.Config("hostZ")
	cfg.HostWait = 8 * time.Second
	begun := time.Now()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: "hostwait-thread", TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "run it"})
	if err != nil {
		t.Fatal(err)
	}
	var warnedAfter time.Duration
	var warning string
	res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Item != nil && e.Item.Type == workflows.ItemError && warning == "" {
			warning, warnedAfter = e.Item.Message, time.Since(begun)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res == nil {
		r := w.WaitTurn(ctx, "hostwait-thread", resp.TurnID)
		res = &r
	}
	took := time.Since(begun)
	if !strings.Contains(warning, "no worker serves host hostZ; waiting") {
		t.Fatalf("warning = %q", warning)
	}
	if warnedAfter > 10*time.Second {
		t.Fatalf("the warning came after %s, want within seconds", warnedAfter)
	}
	if res.Status != workflows.StatusFailed || !strings.Contains(res.Error, "no worker serves host hostZ: gave up after 8s") {
		t.Fatalf("turn %s: %q", res.Status, res.Error)
	}
	if took < 8*time.Second || took > 30*time.Second {
		t.Fatalf("the turn ended after %s, want the 8 s bound (plus a little)", took)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "ran.txt")); err == nil {
		t.Fatal("the command ran")
	}
	t.Logf("warned after %s, failed after %s", warnedAfter.Round(time.Millisecond), took.Round(time.Millisecond))
}
