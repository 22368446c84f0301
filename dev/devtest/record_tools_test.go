package devtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TestRecordToolsHistories records the paths added for tools from outside
// (skills found on the host, an MCP server's tools, a dynamic tool answered
// by a front end, a stall timeout, a thread name), each behind
// workflow.GetVersion. With -record it writes only the tools-* files;
// without, it checks that the scenario runs.
func TestRecordToolsHistories(t *testing.T) {
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
	// The tools-* files were recorded before skills were found in-process
	// on the host worker (a local activity, behind GetVersion); they stay
	// to check that turns of that build still replay.
	w.save(ctx, "tools-code2q", id)
}
