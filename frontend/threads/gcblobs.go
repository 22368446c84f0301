package threads

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// BucketBlobs is a transcript store whose blobs can be listed (the
// [store] url bucket), for [CollectBlobs].
type BucketBlobs interface {
	BlobStore
	// Refs calls each for every blob, with when it was written.
	Refs(ctx context.Context, each func(ref string, written time.Time) error) error
}

// Collected is what [CollectBlobs] found.
type Collected struct {
	Threads int `json:"threads"`
	Blobs   int `json:"blobs"`
	// Unreferenced blobs older than the grace period; Removed of them
	// were deleted (none in a dry run).
	Unreferenced int `json:"unreferenced"`
	Removed      int `json:"removed"`
}

// CollectBlobs deletes the blobs no thread reaches (open, closed or
// archived, as long as the server keeps it) that were written more than
// grace ago: the blobs of threads deleted without a sweep or removed by
// the namespace's retention, and transcripts compaction replaced. The
// grace period keeps a running turn's newest blobs, which its thread's
// state does not name yet. If a thread cannot be read, nothing is
// deleted.
func CollectBlobs(ctx context.Context, c client.Client, namespace string, blobs BucketBlobs, grace time.Duration, dryRun bool) (Collected, error) {
	var out Collected
	keep := map[string]bool{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, PageSize: 200, NextPageToken: token, Query: "WorkflowType = 'ThreadWorkflow'",
		})
		if err != nil {
			return out, fmt.Errorf("listing threads: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			if e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
				continue
			}
			id := e.GetExecution().GetWorkflowId()
			st, err := State(ctx, c, id)
			if errors.Is(err, ErrThreadNotFound) {
				continue
			}
			if err != nil {
				return out, fmt.Errorf("reading thread %s: %w", id, err)
			}
			out.Threads++
			reach(blobs, refsIn(st), keep)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	cutoff := time.Now().Add(-grace)
	var gone []string
	err := blobs.Refs(ctx, func(ref string, written time.Time) error {
		out.Blobs++
		if !keep[ref] && written.Before(cutoff) {
			gone = append(gone, ref)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	out.Unreferenced = len(gone)
	if dryRun {
		return out, nil
	}
	for _, ref := range gone {
		if err := blobs.Delete(ref); err != nil {
			return out, fmt.Errorf("deleting blob %s: %w", ref, err)
		}
		out.Removed++
	}
	return out, nil
}
