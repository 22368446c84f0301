package threads

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Deleted is what [Delete] removed.
type Deleted struct {
	// Threads are the thread ids deleted: the thread, then its
	// sub-agents.
	Threads []string `json:"threads"`
	// Executions counts the workflow runs deleted (threads and turns).
	Executions int `json:"executions"`
	// Blobs counts the store blobs deleted; BlobsKept says why none were
	// when the store could not be swept (empty otherwise).
	Blobs     int    `json:"blobs"`
	BlobsKept string `json:"blobs_kept,omitempty"`
}

// deleteWait bounds the wait for a running turn to end when its thread is
// deleted.
const deleteWait = 30 * time.Second

// Delete removes a thread for good: a running turn is interrupted and
// waited for (its commands' processes end with it), the thread is
// archived (its sub-agents and exec sessions end) and its workflow runs
// and its turns' are deleted, as are its sub-agents', so it leaves every
// list and the Temporal UI. With blobs set, the store blobs only these
// threads reference go too (see [sweepBlobs]).
func Delete(ctx context.Context, c client.Client, namespace, threadID string, blobs BlobStore) (Deleted, error) {
	var out Deleted
	if err := workflows.CheckThreadID(threadID); err != nil {
		return out, err
	}
	d, err := c.DescribeWorkflowExecution(ctx, threadID, "")
	if err != nil {
		return out, threadErr(threadID, err)
	}
	if d.GetWorkflowExecutionInfo().GetType().GetName() != "ThreadWorkflow" {
		return out, fmt.Errorf("%w: %s", ErrThreadNotFound, threadID)
	}
	tree := threadTree(ctx, c, threadID)
	states := map[string]workflows.ThreadState{}
	for _, id := range tree {
		if st, err := State(ctx, c, id); err == nil {
			states[id] = st
		}
	}
	if d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		if err := stopThread(ctx, c, threadID); err != nil {
			return out, err
		}
	}
	var roots []string
	if blobs != nil {
		for _, id := range tree {
			roots = append(roots, refsIn(states[id])...)
			roots = append(roots, historyRefs(ctx, c, id)...)
			for turn := 1; turn < states[id].NextTurn; turn++ {
				roots = append(roots, historyRefs(ctx, c, workflows.TurnWorkflowID(id, turn))...)
			}
		}
	}
	for _, id := range tree {
		n, err := deleteRuns(ctx, c, namespace, id)
		if err != nil {
			return out, fmt.Errorf("deleting thread %s: %w", id, err)
		}
		out.Executions += n
		for turn := 1; turn < states[id].NextTurn || turn == 1; turn++ {
			n, err := deleteRuns(ctx, c, namespace, workflows.TurnWorkflowID(id, turn))
			if err != nil {
				return out, fmt.Errorf("deleting turn %d of %s: %w", turn, id, err)
			}
			out.Executions += n
		}
		out.Threads = append(out.Threads, id)
	}
	if blobs == nil {
		out.BlobsKept = "no store to sweep here"
		return out, nil
	}
	out.Blobs, err = sweepBlobs(ctx, c, namespace, blobs, roots, tree)
	if err != nil {
		out.BlobsKept = err.Error()
	}
	return out, nil
}

// threadTree is a thread and its sub-agents, depth first, as their views
// list them (a view that cannot be read lists none).
func threadTree(ctx context.Context, c client.Client, root string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if seen[id] || len(out) > 1000 {
			return
		}
		seen[id] = true
		out = append(out, id)
		v, err := Read(ctx, c, id)
		if err != nil {
			return
		}
		for _, a := range v.Agents {
			walk(a.ID)
		}
	}
	walk(root)
	return out
}

// stopThread ends a running thread: its running turn is interrupted and
// waited for, then the thread is archived, which ends its sub-agents and
// its exec sessions. A thread that will not archive is terminated.
func stopThread(ctx context.Context, c client.Client, threadID string) error {
	wctx, cancel := context.WithTimeout(ctx, deleteWait)
	defer cancel()
	for {
		v, err := Read(wctx, c, threadID)
		if err != nil || v.RunningTurn == "" {
			break
		}
		_ = Interrupt(wctx, c, threadID)
		if err := sleepCtx(wctx, 50*time.Millisecond); err != nil {
			break
		}
	}
	if err := Archive(wctx, c, threadID); err == nil {
		return nil
	}
	err := c.TerminateWorkflow(ctx, threadID, "", "thread deleted")
	var nf *serviceerror.NotFound
	if err != nil && !errors.As(err, &nf) && !threadClosed(ctx, c, threadID) {
		return fmt.Errorf("stopping thread %s: %w", threadID, err)
	}
	return nil
}

// deleteRuns deletes every run of a workflow id (a thread's runs across
// continue-as-new and unarchiving); none is not an error. Deletion is
// asynchronous: it is asked again while visibility still lists a run
// (a close record written after the deletion's removal brings one back).
func deleteRuns(ctx context.Context, c client.Client, namespace, workflowID string) (int, error) {
	if err := closeRun(ctx, c, workflowID); err != nil {
		return 0, err
	}
	n := 0
	for attempt := 0; attempt < 3; attempt++ {
		runs, err := listedRuns(ctx, c, namespace, workflowID)
		if err != nil {
			return n, err
		}
		if d, err := c.DescribeWorkflowExecution(ctx, workflowID, ""); err == nil {
			// Visibility may lag behind a run that just started.
			runs[d.GetWorkflowExecutionInfo().GetExecution().GetRunId()] = true
		}
		if len(runs) == 0 {
			return n, nil
		}
		for run := range runs {
			_, err := c.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
				Namespace: namespace, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: workflowID, RunId: run},
			})
			var nf *serviceerror.NotFound
			switch {
			case err == nil:
				if attempt == 0 {
					n++
				}
			case errors.As(err, &nf):
			default:
				return n, err
			}
		}
		for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); {
			left, err := listedRuns(ctx, c, namespace, workflowID)
			if err != nil {
				return n, err
			}
			if len(left) == 0 {
				return n, nil
			}
			if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// listedRuns are the runs of a workflow id that visibility lists.
func listedRuns(ctx context.Context, c client.Client, namespace, workflowID string) (map[string]bool, error) {
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: namespace, PageSize: 1000, Query: "WorkflowId = " + visibilityString(workflowID),
	})
	if err != nil {
		return nil, err
	}
	runs := map[string]bool{}
	for _, e := range resp.GetExecutions() {
		runs[e.GetExecution().GetRunId()] = true
	}
	return runs, nil
}

// closeWait bounds the wait for a workflow that is ending by itself (an
// archived thread, a closed sub-agent) before it is terminated.
const closeWait = 5 * time.Second

// closeRun makes sure a workflow's current run has closed before it is
// deleted: deleting a running workflow terminates it, and the visibility
// record its termination writes can land after the deletion removed it,
// leaving a thread in every list that is no longer there.
func closeRun(ctx context.Context, c client.Client, workflowID string) error {
	deadline := time.Now().Add(closeWait)
	terminated := false
	for {
		d, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return nil
		}
		if !terminated && time.Now().After(deadline) {
			if err := c.TerminateWorkflow(ctx, workflowID, "", "thread deleted"); err != nil && !errors.As(err, &nf) {
				return fmt.Errorf("terminating %s: %w", workflowID, err)
			}
			terminated = true
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}
