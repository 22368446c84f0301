package mcp

import (
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The model's goal changes reach the MCP client on its codex/event
// stream as Codex's thread_goal_updated, while the call runs: create_goal
// (active), then update_goal (complete).
func TestMCPServerStreamsGoalChanges(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("create_goal", `{"objective":"tidy the docs","token_budget":90000}`)}},
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("update_goal", `{"status":"complete"}`)}},
		{Text: "docs tidied"},
	}}}})
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()

	run := e.startMCPClient(mcpCall("codex", map[string]any{"prompt": "set yourself a goal and finish it"}))
	threadID, content, _ := callResult(t, run, run.step(0, 2*time.Minute))
	if content != "docs tidied" {
		t.Fatalf("content %q", content)
	}
	var goals []map[string]any
	taskComplete := -1
	for i, l := range run.snapshot() {
		ev, _ := l["event"].(map[string]any)
		msg, _ := ev["msg"].(map[string]any)
		switch msg["type"] {
		case "thread_goal_updated":
			goals = append(goals, msg)
			if taskComplete >= 0 {
				t.Fatalf("a goal change after task_complete\n%s", run.diag())
			}
		case "task_complete":
			taskComplete = i
		}
	}
	if len(goals) != 2 {
		t.Fatalf("%d thread_goal_updated messages, want 2\n%s", len(goals), run.diag())
	}
	for i, want := range []string{"active", "complete"} {
		m := goals[i]
		g, _ := m["goal"].(map[string]any)
		if m["thread_id"] != threadID || m["turn_id"] == nil || g["status"] != want || g["objective"] != "tidy the docs" ||
			g["thread_id"] != threadID || g["token_budget"] != float64(90000) {
			t.Fatalf("thread_goal_updated %d: %v (want status %s)", i, m, want)
		}
	}
	run.finish(time.Minute)
}
