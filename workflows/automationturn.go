package workflows

import (
	"context"

	"go.temporal.io/sdk/temporal"
)

// AutomationTurns sends an automation's turn to its thread and waits
// for the turn's end. Front-end code implements it (frontend/threads:
// the same update-with-start a front end sends); the worker's process
// hands it in, as it hands the activities their clients.
type AutomationTurns interface {
	RunTurn(ctx context.Context, in AutomationTurnInput) (AutomationRun, error)
}

// AutomationActivities holds the activity of a prompt run. It lives
// here, not in activities, because its payloads are this package's
// (the thread's config and turn request); it only delegates.
type AutomationActivities struct {
	Turns AutomationTurns
}

// RunAutomationTurn sends the turn and waits for its end. Retried, it
// sends the same turn (by RequestID): never a second one.
func (a *AutomationActivities) RunAutomationTurn(ctx context.Context, in AutomationTurnInput) (AutomationRun, error) {
	if a == nil || a.Turns == nil {
		return AutomationRun{}, temporal.NewNonRetryableApplicationError("this worker cannot start turns (no Temporal client for automations)", "NoAutomationTurns", nil)
	}
	return a.Turns.RunTurn(ctx, in)
}
