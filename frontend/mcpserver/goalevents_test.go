package mcpserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A goal tool's change is Codex's thread_goal_updated message, its goal
// in Codex's core field names.
func TestGoalChangeIsThreadGoalUpdated(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	m := eventMapper{threadID: "th"}
	msgs := m.messages(workflows.Event{Type: workflows.EventGoalUpdated, TurnID: "th/turn-2", Goal: &workflows.Goal{
		Objective: "ship it", Status: workflows.GoalBudgetLimited, TokensUsed: 42, TimeUsedSeconds: 7,
		CreatedAt: at, UpdatedAt: at.Add(time.Minute), Seq: 3}})
	if len(msgs) != 1 {
		t.Fatalf("messages: %v", msgs)
	}
	got, err := json.Marshal(wireEvent{msgs[0]})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"goal":{"created_at":1800000000,"objective":"ship it","status":"budgetLimited","thread_id":"th",` +
		`"time_used_seconds":7,"token_budget":null,"tokens_used":42,"updated_at":1800000060},` +
		`"thread_id":"th","turn_id":"th/turn-2","type":"thread_goal_updated"}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if s := summary(msgs[0]); s != "goal budgetLimited" {
		t.Fatalf("progress summary %q", s)
	}
	if msgs := m.messages(workflows.Event{Type: workflows.EventGoalUpdated}); len(msgs) != 0 {
		t.Fatalf("an event without a goal: %v", msgs)
	}
}
