package mcpserver

import "github.com/interpreter-dev/interpreter/workflows"

// Goal changes on the codex/event stream. Codex 0.171's protocol has one
// event message for them, thread_goal_updated (EventMsg::ThreadGoalUpdated:
// thread_id, turn_id, goal), whose goal is its core ThreadGoal in
// snake_case; it has none for a cleared goal, so neither has this server.
// A call's stream carries the changes its turn's goal tools make
// (create_goal, update_goal), when the model makes them.

// threadGoalUpdatedEvent is Codex's thread_goal_updated message.
type threadGoalUpdatedEvent struct {
	Goal     threadGoal `json:"goal"`
	ThreadID string     `json:"thread_id"`
	TurnID   *string    `json:"turn_id"`
}

// threadGoal is Codex's core ThreadGoal; fields in key order (see
// wireEvent).
type threadGoal struct {
	CreatedAt       int64  `json:"created_at"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	ThreadID        string `json:"thread_id"`
	TimeUsedSeconds int64  `json:"time_used_seconds"`
	TokenBudget     *int64 `json:"token_budget"`
	TokensUsed      int64  `json:"tokens_used"`
	UpdatedAt       int64  `json:"updated_at"`
}

func (threadGoalUpdatedEvent) eventType() string { return "thread_goal_updated" }

// goalUpdated is the message of a goal.updated event of a turn of
// threadID.
func goalUpdated(threadID string, e workflows.Event) msg {
	g := e.Goal
	var turn *string
	if e.TurnID != "" {
		id := e.TurnID
		turn = &id
	}
	return threadGoalUpdatedEvent{ThreadID: threadID, TurnID: turn, Goal: threadGoal{
		CreatedAt: g.CreatedAt.Unix(), Objective: g.Objective, Status: g.Status, ThreadID: threadID,
		TimeUsedSeconds: g.TimeUsedSeconds, TokenBudget: g.TokenBudget, TokensUsed: g.TokensUsed,
		UpdatedAt: g.UpdatedAt.Unix()}}
}
