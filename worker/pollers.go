package worker

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// pollers lists when each worker polling an activity queue last polled
// it, for the activity that tells a missing workspace host from a busy one.
func pollers(c client.Client, namespace string) func(context.Context, string) ([]time.Time, error) {
	return func(ctx context.Context, queue string) ([]time.Time, error) {
		resp, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
			Namespace:     namespace,
			TaskQueue:     &taskqueuepb.TaskQueue{Name: queue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
			TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
		})
		if err != nil {
			return nil, fmt.Errorf("describing task queue %s: %w", queue, err)
		}
		var out []time.Time
		for _, p := range resp.GetPollers() {
			out = append(out, p.GetLastAccessTime().AsTime())
		}
		return out, nil
	}
}
