package appserver

import (
	"context"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// SetGoal creates or changes a thread's goal ([GoalBackend]).
func (a *TemporalBackend) SetGoal(ctx context.Context, threadID string, r workflows.GoalSetRequest) (workflows.Goal, error) {
	return threads.SetGoal(ctx, a.Client, threadID, r)
}

// ClearGoal removes a thread's goal.
func (a *TemporalBackend) ClearGoal(ctx context.Context, threadID string) (bool, error) {
	return threads.ClearGoal(ctx, a.Client, threadID)
}

// Goal reads a thread's goal.
func (a *TemporalBackend) Goal(ctx context.Context, threadID string) (*workflows.Goal, error) {
	return threads.ReadGoal(ctx, a.Client, threadID)
}
