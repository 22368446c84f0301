package threads

import (
	"context"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// ThreadChanges tells when a thread's view may have changed: a tick on the
// returned channel after each of the thread's workflow tasks completes
// (the only moments its state moves: a turn accepted, started or taken
// in), coalesced while nobody reads. It long-polls the thread's history,
// which costs the server nothing while the thread is idle, and follows the
// thread across continue-as-new. The channel is closed when ctx ends.
func ThreadChanges(ctx context.Context, c client.Client, threadID string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	tick := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(ch)
		for ctx.Err() == nil {
			it := c.GetWorkflowHistory(ctx, threadID, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					break
				}
				if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
					tick()
				}
			}
			// The run ended (continued as new, archived) or reading
			// failed: look again after a pause, from the current run.
			tick()
			if sleepCtx(ctx, time.Second) != nil {
				return
			}
		}
	}()
	return ch
}
