package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TestRecordUnifiedExecHistories records the unified-exec paths: a
// session started in one turn (and one that ends within its wait), typed
// into and stopped in the next, a call to a session that is gone, and the
// archive that closes a session left open. With -record it writes the
// uexec-* files; without, it checks that the scenario runs.
func TestRecordUnifiedExecHistories(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "open", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{
				toolCall("exec_command", map[string]any{"cmd": `echo up; while read l; do echo "got:$l"; [ "$l" = stop ] && exit 0; done`, "tty": true, "yield_time_ms": 500})}},
			// Two calls in one answer: the next request carries three results.
			{ToolCalls: []fakemodel.ToolCall{
				toolCall("exec_command", map[string]any{"cmd": "sleep 30", "yield_time_ms": 250}),
				toolCall("exec_command", map[string]any{"cmd": "echo once"}),
			}},
			{Text: "not asked for"},
			{Text: "opened"},
		}},
		{Match: "talk", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "stop\n", "yield_time_ms": 5000})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000})}},
			{Text: "talked"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := "uexec-" + time.Now().Format("150405.000")
	first, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "open"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, first.TurnID); res.Status != workflows.StatusCompleted || len(res.ExecSessions) != 2 {
		reqs := w.Model.Server.Requests()
		t.Fatalf("open turn: %s %s %+v\n%q", res.Status, res.Error, res.ExecSessions, toolOutputs(t, reqs[len(reqs)-1].Body))
	}
	second, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, second.TurnID); res.Status != workflows.StatusCompleted || len(res.ExecSessions) != 1 {
		t.Fatalf("talk turn: %s %s %+v", res.Status, res.Error, res.ExecSessions)
	}
	if err := threads.Archive(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("the archived thread: %v", err)
	}
	if !*record {
		return
	}
	w.saveChain(ctx, "uexec-thread", id)
	w.saveChain(ctx, "uexec-turn-1", first.TurnID)
	w.saveChain(ctx, "uexec-turn-2", second.TurnID)
}
