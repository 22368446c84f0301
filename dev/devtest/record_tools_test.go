package devtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordTools: tools from outside the harness (a skill found on the host,
// an MCP server's tool, a dynamic tool answered by a front end) under a
// stall timeout, a thread name, and a second turn whose model call is
// slower than its budget in the workflow task (handed off).
func recordTools(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "tools", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("mcp__probe__echo", `{"message":"hello"}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("lookup", `{"term":"durable"}`)}},
			{Text: "tools done"},
		}},
		// Slower than the budget of a call in the workflow task: handed
		// off to a regular activity.
		{Match: "again", Steps: []fakemodel.Step{{Text: "again done", DelayMs: 400}}},
	}})
	if err := os.MkdirAll(filepath.Join(w.Dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.Dir, ".agents", "skills", "probe", skills.FileName),
		"---\nname: probe\ndescription: Echo things through the probe server.\n---\nCall mcp__probe__echo.\n")
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cfg := w.Config("")
	cfg.MCPServers = []mcpclient.Server{{Name: "probe", Command: mcptest.BuildServer(t)}}
	cfg.DynamicTools = []harness.ExternalTool{{Name: "lookup", Description: "Look a term up.", Source: harness.SourceDynamic, Tool: "lookup",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"term": map[string]any{"type": "string"}}}}}
	cfg.StallTimeout = 5 * time.Minute
	id := "tools-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "tools"})
	if err != nil {
		t.Fatal(err)
	}
	answered := false
	var mcpItem *workflows.Item
	err = threads.FollowTurn(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Type == workflows.EventItemCompleted && e.Item != nil && e.Item.Type == workflows.ItemMCPToolCall {
			mcpItem = e.Item
		}
		if answered || e.Item == nil || e.Item.Type != workflows.ItemDynamicToolCall || e.Type != workflows.EventItemStarted {
			return
		}
		answered = true
		calls, err := threads.DynamicCalls(ctx, w.Client, resp.TurnID)
		if err != nil || len(calls) != 1 {
			t.Errorf("pending dynamic calls: %v %v", calls, err)
			return
		}
		err = threads.AnswerDynamic(ctx, w.Client, resp.TurnID, workflows.DynamicAnswer{ThreadID: id, ItemID: calls[0].ItemID,
			Success: true, Content: []workflows.DynamicContent{{Type: "inputText", Text: "durable: it survives"}}})
		if err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "tools done" {
		t.Fatalf("tools turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	if !answered {
		t.Fatal("the dynamic tool was never asked")
	}
	if mcpItem == nil || mcpItem.Status != workflows.StatusCompleted || !strings.Contains(mcpItem.Result, "hello") || mcpItem.DurationMs <= 0 {
		t.Fatalf("mcp call: %+v", mcpItem)
	}
	if body := string(w.Model.Server.Requests()[0].Body); !strings.Contains(body, "probe") || !strings.Contains(body, "mcp__probe__echo") {
		t.Fatalf("the first request lacks the skill or the MCP tool: %.400s", body)
	}
	if err := threads.SetName(ctx, w.Client, id, "recorded"); err != nil {
		t.Fatal(err)
	}
	next, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "again"})
	if err != nil {
		t.Fatal(err)
	}
	w.WaitTurn(ctx, id, next.TurnID)
	w.save(ctx, "tools", id)
}

// recordPictures: a model call retried by the workflow (a 500 once), an
// attached image, AGENTS.md files, reasoning settings, two view_image
// calls of one answer run side by side, and a turn that fails (a 401).
func recordPictures(t *testing.T) {
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
	id := "pictures-" + time.Now().Format("150405.000")
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
	w.save(ctx, "pictures", id)
}

// recordStopCommand: a quiet command stopped by an interrupt through
// StopCommand, then a turn whose command completes.
func recordStopCommand(t *testing.T) { recordStop(t, "stop-command") }

// recordStopOnWorker: the same since the turn waits for the stop's answer
// and sends it on to the worker that runs the command (the
// stop-on-worker version marker).
func recordStopOnWorker(t *testing.T) { recordStop(t, "stop-on-worker") }

func recordStop(t *testing.T, name string) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "quiet", Steps: []fakemodel.Step{{Shell: "exec sleep 58.765"}, {Text: "never read"}}},
		{Match: "talk", Steps: []fakemodel.Step{{Shell: "echo hello"}, {Text: "said hello"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := "stop-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	awaitCommandsRunning(ctx, t, w, []string{resp.TurnID})
	if err := threads.Interrupt(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusInterrupted {
		t.Fatalf("quiet turn: %s %s", res.Status, res.Error)
	}
	next, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, next.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "said hello" {
		t.Fatalf("talk turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	w.save(ctx, name, id)
}

// recordUnifiedExec: a terminal session started in one turn (beside one
// that ends within its wait and a second started in the same answer),
// typed into and stopped in the next, a poll of the session that ended,
// and the archive that closes the session left open. Its files (uexec-*)
// were recorded with each exec_command a regular activity, as
// temporal.local_commands = false runs them; recordUnifiedExecLocal
// records the same with the default (uexec-local-*).
func recordUnifiedExec(t *testing.T) { recordSessions(t, "uexec", false) }

// recordUnifiedExecLocal: recordUnifiedExec with exec_command calls run
// as local activities first (the local-exec-command marker): the quick
// one answered inside the task, the terminal session (a 500 ms yield)
// handed off to ResumeExecCommand after 250 ms, the 250 ms one answered
// as running from the local activity.
func recordUnifiedExecLocal(t *testing.T) { recordSessions(t, "uexec-local", true) }

func recordSessions(t *testing.T, name string, local bool) {
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
	id := name + "-" + time.Now().Format("150405.000")
	cfg := w.Config("")
	if !local {
		cfg.Commands = workflows.CommandsActivity
	}
	first, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
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
	// The first turn's exec_command calls: L a local activity, A an
	// ExecCommand activity, R a hand-off.
	var shape strings.Builder
	for _, e := range historyOf(t, w, first.TurnID) {
		if e.GetMarkerRecordedEventAttributes() != nil && slices.Contains(localActivities(t, []*historypb.HistoryEvent{e}), "ExecCommandHere") {
			shape.WriteString("L")
		}
		switch e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() {
		case workflows.ActivityExecCommand:
			shape.WriteString("A")
		case workflows.ActivityResumeExecCommand:
			shape.WriteString("R")
		}
	}
	want := "AAA"
	if local {
		want = "LRLL"
	}
	if shape.String() != want {
		t.Fatalf("the first turn's exec_command calls ran as %q, want %q", shape.String(), want)
	}
	w.save(ctx, name, id)
}

// recordFailover: the worker running a turn's command stops; another
// worker takes the turn over, the command is reported interrupted (not
// run again) and the model goes on.
func recordFailover(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "outlive", Steps: []fakemodel.Step{{Shell: "exec sleep 45.678"}, {Text: "went on"}}},
	}})
	first := w.StartWorker(WorkerOptions{Name: "first"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.ExecHeartbeat = 2 * time.Second
	id := "failover-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "outlive"})
	if err != nil {
		t.Fatal(err)
	}
	awaitCommandsRunning(ctx, t, w, []string{resp.TurnID})
	w.StartWorker(WorkerOptions{Name: "second"})
	first.Stop()
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "went on" {
		t.Fatalf("failover turn: %s %s %q", res.Status, res.Error, res.FinalMessage)
	}
	var page workflows.EventsPage
	v, err := w.Client.QueryWorkflow(ctx, resp.TurnID, "", workflows.QueryEvents, workflows.EventsRequest{})
	if err != nil || v.Get(&page) != nil {
		t.Fatalf("the turn's events: %v", err)
	}
	for _, e := range page.Events {
		if e.Type != workflows.EventItemCompleted || e.Item.Type != workflows.ItemCommandExecution {
			continue
		}
		// Interrupted as a rule; a stop that cancels the command's
		// activity first reports it failed (both paths replay).
		if e.Item.Status != workflows.StatusInterrupted {
			t.Logf("the stopped worker's command: %s: %s", e.Item.Status, e.Item.AggregatedOutput)
		}
	}
	w.save(ctx, "failover", id)
}
