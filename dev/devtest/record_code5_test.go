package devtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TestRecordCode5Histories records the paths of turn codes 4 and 5 and
// of what came with them: a model call retried by the workflow (a 500
// once), an attached image, AGENTS.md files, reasoning settings, two
// view_image calls of one answer run side by side, and a turn that fails
// (a 401) as a failed workflow. With -record it writes the code5-* files;
// without, it checks that the scenario runs.
func TestRecordCode5Histories(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "pictures", Steps: []fakemodel.Step{
			{Reasoning: "look at both", FailStatus: 500, ToolCalls: []fakemodel.ToolCall{
				call("view_image", `{"path":"a.png"}`), call("view_image", `{"path":"b.png"}`)}},
			{Text: "two pictures seen"},
		}},
		{Match: "broken", Steps: []fakemodel.Step{{Text: "x", FailStatus: 401, FailTimes: 9}}},
	}})
	writeFiles(t, map[string]string{
		filepath.Join(w.Dir, ".git", "HEAD"): "ref: refs/heads/main\n",
		filepath.Join(w.Dir, "AGENTS.md"):    "Keep it short.\n",
	})
	testPNG(t, filepath.Join(w.Dir, "a.png"))
	testPNG(t, filepath.Join(w.Dir, "b.png"))
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Model = "gpt-5.1"
	cfg.Reasoning = harness.Reasoning{Effort: "low"}
	id := "code5-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "pictures", Images: []workflows.ImageSource{{Path: filepath.Join(w.Dir, "a.png")}}})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "two pictures seen" {
		t.Fatalf("pictures turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	next, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "broken"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, next.TurnID); res.Status != workflows.StatusFailed {
		t.Fatalf("broken turn: %s %s", res.Status, res.Error)
	}
	w.save(ctx, "code5", id)
}
