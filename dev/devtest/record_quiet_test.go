package devtest

import (
	"context"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordQuiet: quiet tool calls (the quiet-tools and quiet-watches
// markers): an MCP call, a session started and polled, left running as a
// background terminal the thread watches; a long poll of it interrupted,
// which the turn ends at once through its worker although the call
// heartbeats minutes apart; an MCP call interrupted the same way; the
// archive that closes the session.
func recordQuiet(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "QUIET-OPEN", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("mcp__slow__echo", map[string]string{"message": "hi"})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": "while true; do sleep 0.2; done", "yield_time_ms": 250})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 5000})}},
			{Text: "left running"},
		}},
		{Match: "QUIET-POLL", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 300000})}},
			{Text: "never read"},
		}},
		{Match: "QUIET-MCP", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("mcp__slow__sleep", map[string]int{"ms": 60000})}},
			{Text: "never read"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.BackgroundTerminals = &workflows.BackgroundTerminalsConfig{}
	cfg.MCPServers = []mcpclient.Server{{Name: "slow", Command: mcptest.BuildServer(t)}}
	id := "quiet-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "QUIET-OPEN"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || len(res.ExecSessions) != 1 {
		t.Fatalf("open turn: %s %s %+v", res.Status, res.Error, res.ExecSessions)
	}
	w.awaitTakenIn(ctx, id)
	for _, c := range []struct{ prompt, activity string }{{"QUIET-POLL", "WriteStdin"}, {"QUIET-MCP", "MCPCallTool"}} {
		next, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: c.prompt})
		if err != nil {
			t.Fatal(err)
		}
		awaitActivityStarted(ctx, t, w, next.TurnID, c.activity)
		start := time.Now()
		if err := threads.Interrupt(ctx, w.Client, id); err != nil {
			t.Fatal(err)
		}
		if res := w.WaitTurn(ctx, id, next.TurnID); res.Status != workflows.StatusInterrupted {
			t.Fatalf("%s turn: %s %s", c.prompt, res.Status, res.Error)
		}
		// Its heartbeats are minutes apart: only the stop sent to its
		// worker ends it this soon.
		took := time.Since(start)
		t.Logf("%s: interrupt to the turn's end %v", c.activity, took.Round(time.Millisecond))
		if took > 10*time.Second {
			t.Fatalf("%s: the turn ended %v after the interrupt", c.activity, took)
		}
		w.awaitTakenIn(ctx, id)
	}
	if list, err := threads.BackgroundTerminals(ctx, w.Client, id); err != nil || len(list) != 1 {
		t.Fatalf("background terminals: %v %v", list, err)
	}
	if err := threads.Archive(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("the archived thread: %v", err)
	}
	w.save(ctx, "quiet", id)
}

// awaitActivityStarted waits until workflowID has a started pending
// activity of type name.
func awaitActivityStarted(ctx context.Context, t *testing.T, w *World, workflowID, name string) {
	t.Helper()
	for {
		if d, err := w.Client.DescribeWorkflowExecution(ctx, workflowID, ""); err == nil {
			for _, pa := range d.GetPendingActivities() {
				if pa.GetActivityType().GetName() == name && pa.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %s started in %s", name, workflowID)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
