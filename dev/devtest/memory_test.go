package devtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/worker"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Memory end to end on the real server: an idle thread's memory is
// extracted by the model (a secret in it redacted), consolidated into
// MEMORY.md on demand and by the Schedule, and a new thread starts with it
// in its instructions.
func TestMemoryAcrossThreads(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "Memory extraction:", Steps: []fakemodel.Step{{Text: "SUMMARY: set up the build\n- The user's projects build with `make ci`\n- Deploy key is sk-proj-abcdefghijklmnopqrstuvwx"}}},
		{Match: "first", Steps: []fakemodel.Step{{Shell: "echo working"}, {Text: "first done"}}},
		{Match: "later", Steps: []fakemodel.Step{{Text: "later done"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "w"})
	memDir := filepath.Join(w.Dir, "memories")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Memories = true
	cfg.MemoryIdle = time.Second

	_, res := w.RunTurn(ctx, cfg, "first task")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("first thread: %+v", res)
	}
	var raw []string
	waitFor(t, func() bool {
		raw, _ = filepath.Glob(filepath.Join(memDir, "raw", "*.json"))
		return len(raw) == 1
	}, "the idle thread's raw memory")
	b, _ := os.ReadFile(raw[0])
	var rm struct {
		Summary string   `json:"summary"`
		Facts   []string `json:"facts"`
	}
	if err := json.Unmarshal(b, &rm); err != nil {
		t.Fatal(err)
	}
	if rm.Summary != "set up the build" || len(rm.Facts) != 2 || rm.Facts[1] != "Deploy key is [REDACTED]" {
		t.Fatalf("raw memory: %s", b)
	}
	if !w.Model.Server.LastRequestContains("echo working") {
		t.Fatal("the extraction did not read the thread")
	}

	out, err := threads.ConsolidateMemories(ctx, w.Client, TaskQueue, workflows.ConsolidateRequest{MaxUnusedDays: 30})
	if err != nil || out.Merged != 1 || out.Entries != 2 || out.Skipped {
		t.Fatalf("consolidation: %+v %v", out, err)
	}
	md, _ := os.ReadFile(filepath.Join(memDir, activities.MemoryFile))
	if !strings.Contains(string(md), "- The user's projects build with `make ci` <!-- uses=1") || strings.Contains(string(md), "sk-proj") {
		t.Fatalf("MEMORY.md:\n%s", md)
	}

	_, res = w.RunTurn(ctx, cfg, "later task")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("later thread: %+v", res)
	}
	later := w.Model.Server.RequestsContaining("later task")
	if len(later) == 0 || !strings.Contains(string(later[0].Body), "build with `make ci`") {
		t.Fatalf("the new thread did not get the memory in its instructions")
	}

	// The Schedule runs consolidations too.
	if err := worker.EnsureMemorySchedule(ctx, w.Client, TaskQueue, time.Hour, workflows.ConsolidateRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := worker.EnsureMemorySchedule(ctx, w.Client, TaskQueue, 2*time.Hour, workflows.ConsolidateRequest{}); err != nil {
		t.Fatalf("ensuring an existing schedule: %v", err)
	}
	before, _ := os.Stat(filepath.Join(memDir, activities.MemoryFile))
	time.Sleep(10 * time.Millisecond)
	if err := w.Client.ScheduleClient().GetHandle(ctx, workflows.MemoryScheduleID).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		st, err := os.Stat(filepath.Join(memDir, activities.MemoryFile))
		return err == nil && st.ModTime().After(before.ModTime())
	}, "the scheduled consolidation")
}
