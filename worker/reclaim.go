package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"syscall"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// A worker killed under its activities leaves them started on the server,
// which notices only when their heartbeat timeout runs out (5 s after the
// last heartbeat), and leaves the workflows it ran bound to its sticky
// queue. A worker starting on the same host can tell at once that a
// process of this host is gone: it ends that process's started activities
// as timed out, as the server would have a few seconds later (with the
// last heartbeat the server kept, so a command's report is the same), and
// sends their workflows' next tasks to the shared queue.

// identityPattern reads host and pid from an identity made by [Identity].
var identityPattern = regexp.MustCompile(`@([^/@ ]+)/(\d+)`)

// Identity names a worker process: NAME@HOST/PID (HOST_QUEUE). Reclaim
// reads the host and pid back.
func Identity(name, hostQueue string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s/%d (%s)", name, host, os.Getpid(), hostQueue)
}

// goneHere tells whether identity names a process of this host that no
// longer runs. A pid that runs again (reused) counts as alive: the server's
// own timeout then ends the activity, as before.
func goneHere(identity, host string) bool {
	m := identityPattern.FindStringSubmatch(identity)
	if m == nil || m[1] != host {
		return false
	}
	pid, err := strconv.Atoi(m[2])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// maxReclaimScan bounds how many running turns a starting worker looks at.
const maxReclaimScan = 1000

// Reclaim ends the started activities of the running turns whose worker
// was a dead process of this host, and returns how many it ended.
func Reclaim(ctx context.Context, c client.Client, namespace, identity string) (int, error) {
	host, _ := os.Hostname()
	ended, seen := 0, 0
	var token []byte
	for seen < maxReclaimScan {
		page, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, PageSize: 100, NextPageToken: token,
			Query: "WorkflowType = 'TurnWorkflow' AND ExecutionStatus = 'Running'",
		})
		if err != nil {
			return ended, fmt.Errorf("listing running turns: %w", err)
		}
		for _, ex := range page.GetExecutions() {
			seen++
			n, err := reclaimTurn(ctx, c, namespace, identity, host, ex.GetExecution())
			if err != nil {
				return ended, err
			}
			ended += n
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	return ended, nil
}

func reclaimTurn(ctx context.Context, c client.Client, namespace, identity, host string, ex *commonpb.WorkflowExecution) (int, error) {
	d, err := c.DescribeWorkflowExecution(ctx, ex.GetWorkflowId(), ex.GetRunId())
	if err != nil {
		return 0, nil // ended meanwhile
	}
	ended := 0
	for _, pa := range d.GetPendingActivities() {
		if pa.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED || !goneHere(pa.GetLastWorkerIdentity(), host) {
			continue
		}
		if ended == 0 {
			// The workflow task that takes in the end goes to the
			// shared queue, not to the dead worker's sticky one.
			_, err := c.WorkflowService().ResetStickyTaskQueue(ctx, &workflowservice.ResetStickyTaskQueueRequest{Namespace: namespace, Execution: ex})
			if err != nil {
				return ended, fmt.Errorf("resetting the sticky queue of %s: %w", ex.GetWorkflowId(), err)
			}
		}
		_, err := c.WorkflowService().RespondActivityTaskFailedById(ctx, &workflowservice.RespondActivityTaskFailedByIdRequest{
			Namespace: namespace, WorkflowId: ex.GetWorkflowId(), RunId: ex.GetRunId(), ActivityId: pa.GetActivityId(),
			Identity: identity,
			Failure: &failurepb.Failure{
				Message: fmt.Sprintf("heartbeat timeout: worker %s is gone (found by %s as it started)", pa.GetLastWorkerIdentity(), identity),
				FailureInfo: &failurepb.Failure_TimeoutFailureInfo{TimeoutFailureInfo: &failurepb.TimeoutFailureInfo{
					TimeoutType: enumspb.TIMEOUT_TYPE_HEARTBEAT, LastHeartbeatDetails: pa.GetHeartbeatDetails(),
				}},
			},
		})
		if err != nil {
			continue // completed or timed out meanwhile
		}
		ended++
	}
	return ended, nil
}
