package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordGoal: a goal created by the model's create_goal in a user's turn,
// two continuation turns the thread starts by itself (a command; get_goal
// and update_goal complete), then a person's change and clear.
func recordGoal(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "GOAL-START", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("create_goal", `{"objective":"GOAL-OBJ write done.txt","token_budget":100000}`)}},
			{Text: "goal set"},
		}},
		{Match: "over 0 continuation turns", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["bash","-c","echo done > done.txt"]}`)}},
			{Text: "wrote it"},
		}},
		{Match: "over 1 continuation turns", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("get_goal", `{}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("update_goal", `{"status":"complete"}`)}},
			{Text: "complete"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Goals = &workflows.GoalsConfig{}
	id, res := w.RunTurn(ctx, cfg, "GOAL-START keep at it until done.txt exists")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("first turn: %s %s", res.Status, res.Error)
	}
	var g *workflows.Goal
	for {
		var err error
		if g, err = threads.ReadGoal(ctx, w.Client, id); err != nil {
			t.Fatal(err)
		}
		if g != nil && g.Status != workflows.GoalActive {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the goal did not end: %+v", g)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if g.Status != workflows.GoalComplete || g.Continuations != 2 {
		t.Fatalf("goal: %+v", g)
	}
	if _, err := threads.SetGoal(ctx, w.Client, id, workflows.GoalSetRequest{Status: workflows.GoalPaused}); err != nil {
		t.Fatal(err)
	}
	if cleared, err := threads.ClearGoal(ctx, w.Client, id); err != nil || !cleared {
		t.Fatalf("clear: %v %v", cleared, err)
	}
	w.save(ctx, "goal", id)
}
