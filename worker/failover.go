package worker

import (
	"context"
	"fmt"
	"time"

	activitypb "go.temporal.io/api/activity/v1"
	commonpb "go.temporal.io/api/common/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// failoverRetryDelay is how long after a lost call's timeout the server
// sends it to the shared queue: at once, but a retry needs an interval.
const failoverRetryDelay = 10 * time.Millisecond

// failover implements activities.Failover with the worker's client.
type failover struct {
	c         client.Client
	namespace string
	identity  string
}

// Retarget gives the running activity one more attempt, on queue, right
// after a timeout of this one (UpdateActivityOptions, Temporal 1.27 on:
// the running attempt goes on where it is; a later one goes to the new
// queue). The activity's non-retryable error types, set by the workflow,
// keep the server from retrying a call that failed rather than was lost.
func (f failover) Retarget(ctx context.Context, info activity.Info, queue string) error {
	_, err := f.c.WorkflowService().UpdateActivityOptions(ctx, &workflowservice.UpdateActivityOptionsRequest{
		Namespace: f.namespace,
		Execution: &commonpb.WorkflowExecution{WorkflowId: info.WorkflowExecution.ID, RunId: info.WorkflowExecution.RunID},
		Activity:  &workflowservice.UpdateActivityOptionsRequest_Id{Id: info.ActivityID},
		Identity:  f.identity,
		ActivityOptions: &activitypb.ActivityOptions{
			TaskQueue: &taskqueuepb.TaskQueue{Name: queue},
			RetryPolicy: &commonpb.RetryPolicy{
				MaximumAttempts: info.Attempt + 1,
				InitialInterval: durationpb.New(failoverRetryDelay),
			},
		},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"taskQueue.name", "retryPolicy.maximumAttempts", "retryPolicy.initialInterval"}},
	})
	if err != nil {
		return fmt.Errorf("sending the next attempt of %s to %s: %w", info.ActivityID, queue, err)
	}
	return nil
}

// Unstick resets the workflow's sticky queue.
func (f failover) Unstick(ctx context.Context, workflowID, runID string) error {
	_, err := f.c.WorkflowService().ResetStickyTaskQueue(ctx, &workflowservice.ResetStickyTaskQueueRequest{
		Namespace: f.namespace,
		Execution: &commonpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID},
	})
	if err != nil {
		return fmt.Errorf("resetting the sticky queue of %s: %w", workflowID, err)
	}
	return nil
}
