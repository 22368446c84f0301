package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordCompaction: compaction in the middle of a turn, thread.compact
// between turns, and thread.archive, with model calls as local activities
// and as regular ones.
func recordCompaction(t *testing.T) {
	w := Start(t, compactScript())
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, local := range []bool{true, false} {
		suffix := "local"
		if !local {
			suffix = "activity"
		}
		cfg := w.Config("")
		cfg.LocalModelCalls = local
		cfg.CompactPrompt = "COMPACT-NOW: summarize the conversation"
		cfg.ContextWindow = 1_000_000
		cfg.AutoCompactTokenLimit = 200
		id, res := w.RunTurn(ctx, cfg, "third prompt gamma")
		if res.Status != workflows.StatusCompleted || res.FinalMessage != "went on from the summary" {
			t.Fatalf("compacting turn: %+v", res)
		}
		if _, err := threads.Compact(ctx, w.Client, id); err != nil {
			t.Fatal(err)
		}
		resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "second prompt beta"})
		if err != nil {
			t.Fatal(err)
		}
		if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted {
			t.Fatalf("turn after compaction: %+v", res)
		}
		if err := threads.Archive(ctx, w.Client, id); err != nil {
			t.Fatal(err)
		}
		w.save(ctx, "compact-archive-"+suffix, id)
	}
}

// recordMemory: memories loaded at a thread's start and extracted when it
// is idle, then at its archive.
func recordMemory(t *testing.T) {
	w := Start(t, compactScript())
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.LocalModelCalls = true
	cfg.Memories = true
	cfg.MemoryIdle = time.Second
	id, res := w.RunTurn(ctx, cfg, "second prompt beta")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("memory thread: %+v", res)
	}
	waitFor(t, func() bool { return len(w.Model.Server.RequestsContaining("Memory extraction:")) > 0 }, "the memory extraction")
	time.Sleep(500 * time.Millisecond)
	if err := threads.Archive(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	w.save(ctx, "memory", id)
}
