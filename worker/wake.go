package worker

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/activities"
)

// wakeFollowers sends a turn's run the signal that makes its history move
// for its followers (see activities' wake.go).
func wakeFollowers(c client.Client) func(context.Context, string, string) error {
	return func(ctx context.Context, workflowID, runID string) error {
		if err := c.SignalWorkflow(ctx, workflowID, runID, activities.LiveWakeSignal, nil); err != nil {
			return fmt.Errorf("waking the followers of %s: %w", workflowID, err)
		}
		return nil
	}
}
