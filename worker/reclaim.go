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
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// A worker killed under its activities leaves them started on the server,
// which notices only when their heartbeat timeout runs out (5 s after the
// last heartbeat), and leaves the workflows it ran bound to its sticky
// queue, where each of their next workflow tasks waits out the sticky
// schedule-to-start timeout before the shared queue gets it. A worker
// starting on the same host can tell at once that a process of this host
// is gone: it ends that process's started activities as timed out, as the
// server would have a few seconds later (with the last heartbeat the
// server kept, so a command's report is the same), and sends the next
// tasks of every open workflow that process ran last (turns waiting for
// an approval, threads between turns) to the shared queue.

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

// Reclaim ends the started activities of the running turns and threads
// (a thread's are its background terminals' watches and memory phases)
// whose worker was a dead process of this host, and returns how many it
// ended.
func Reclaim(ctx context.Context, c client.Client, namespace, identity string) (int, error) {
	host, _ := os.Hostname()
	ended := 0
	// Turns first: what they wait on is what a person waits on.
	for _, typ := range []string{"TurnWorkflow", "ThreadWorkflow"} {
		err := eachRunning(ctx, c, namespace, "WorkflowType = '"+typ+"'", func(ex *commonpb.WorkflowExecution) error {
			n, err := reclaimPending(ctx, c, namespace, identity, host, ex)
			ended += n
			return err
		})
		if err != nil {
			return ended, err
		}
	}
	return ended, nil
}

// Unstick unbinds every open thread and turn that a dead process of this
// host ran last from that process's sticky queue. A worker does it before
// it polls, so a front end that acts the moment the worker is back (an
// approval answered, a new turn) is not held up.
func Unstick(ctx context.Context, c client.Client, namespace string) error {
	host, _ := os.Hostname()
	return eachRunning(ctx, c, namespace, "(WorkflowType = 'TurnWorkflow' OR WorkflowType = 'ThreadWorkflow')", func(ex *commonpb.WorkflowExecution) error {
		return unstick(ctx, c, namespace, host, ex)
	})
}

// eachRunning calls fn for each running workflow that query matches, up
// to maxReclaimScan of them.
func eachRunning(ctx context.Context, c client.Client, namespace, query string, fn func(*commonpb.WorkflowExecution) error) error {
	seen := 0
	var token []byte
	for seen < maxReclaimScan {
		page, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, PageSize: 100, NextPageToken: token,
			Query: query + " AND ExecutionStatus = 'Running'",
		})
		if err != nil {
			return fmt.Errorf("listing running workflows: %w", err)
		}
		for _, ex := range page.GetExecutions() {
			seen++
			if err := fn(ex.GetExecution()); err != nil {
				return err
			}
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			return nil
		}
	}
	return nil
}

// lastTaskEvents is how many of a workflow's newest events unstick reads to
// find its last workflow task's worker: a task's scheduled, started and
// completed events come together, after at most a few others.
const lastTaskEvents = 16

// unstick resets the sticky queue of a workflow whose last workflow task
// was taken by a dead process of this host, so its next task (an
// approval's answer, a new turn) does not wait on a queue nobody polls.
func unstick(ctx context.Context, c client.Client, namespace, host string, ex *commonpb.WorkflowExecution) error {
	h, err := c.WorkflowService().GetWorkflowExecutionHistoryReverse(ctx, &workflowservice.GetWorkflowExecutionHistoryReverseRequest{
		Namespace: namespace, Execution: ex, MaximumPageSize: lastTaskEvents,
	})
	if err != nil {
		return nil // ended meanwhile, or too old a server: the sticky timeout still applies
	}
	if !goneHere(lastTaskWorker(h.GetHistory().GetEvents()), host) {
		return nil
	}
	_, err = c.WorkflowService().ResetStickyTaskQueue(ctx, &workflowservice.ResetStickyTaskQueueRequest{Namespace: namespace, Execution: ex})
	if err != nil {
		return fmt.Errorf("resetting the sticky queue of %s: %w", ex.GetWorkflowId(), err)
	}
	return nil
}

// lastTaskWorker is the identity of the worker that took the newest
// workflow task among events, newest first; "" when none shows.
func lastTaskWorker(newestFirst []*historypb.HistoryEvent) string {
	for _, ev := range newestFirst {
		if a := ev.GetWorkflowTaskStartedEventAttributes(); a != nil {
			return a.GetIdentity()
		}
		if a := ev.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			return a.GetIdentity()
		}
	}
	return ""
}

func reclaimPending(ctx context.Context, c client.Client, namespace, identity, host string, ex *commonpb.WorkflowExecution) (int, error) {
	d, err := c.DescribeWorkflowExecution(ctx, ex.GetWorkflowId(), ex.GetRunId())
	if err != nil {
		return 0, nil // ended meanwhile
	}
	ended := 0
	for _, pa := range d.GetPendingActivities() {
		if pa.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED || !goneHere(pa.GetLastWorkerIdentity(), host) {
			continue
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
