package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ListThreads filters in the visibility store when the namespace has the
// search attributes, and on the client (memo and thread queries) when it
// does not; both give the same answer.
func TestListThreadsWithAndWithoutSearchAttributes(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "ok"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.SearchAttributes = true
	id, res := w.RunTurn(ctx, cfg, "list me")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn: %+v", res)
	}
	has := func(ts []threads.Summary) *threads.Summary {
		for i := range ts {
			if ts[i].ThreadID == id {
				return &ts[i]
			}
		}
		return nil
	}
	for _, sa := range []bool{true, false} {
		var got *threads.Summary
		waitFor(t, func() bool {
			ts, err := threads.List(ctx, w.Client, threads.ListOptions{Cwd: w.Dir, Status: "completed", SearchAttributes: sa})
			if err != nil {
				t.Fatal(err)
			}
			got = has(ts)
			return got != nil
		}, "the thread in the list")
		if got.Title != "list me" || got.Cwd != w.Dir || !got.Open {
			t.Fatalf("search attributes %v: %+v", sa, got)
		}
		for _, o := range []threads.ListOptions{{Cwd: t.TempDir()}, {Status: "failed"}, {Status: "archived"}} {
			o.SearchAttributes = sa
			ts, err := threads.List(ctx, w.Client, o)
			if err != nil || has(ts) != nil {
				t.Fatalf("search attributes %v, filter %+v lists the thread (%v)", sa, o, err)
			}
		}
	}
}
