package threads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/interpreter-dev/interpreter/workflows"
)

// BlobStore is the transcript store as [Delete] sweeps it: blobs by
// reference (cmd passes the worker's store on this machine).
type BlobStore interface {
	// Get reads a blob; a missing one is an error.
	Get(ref string) ([]byte, error)
	// Delete removes a blob; a missing one is not an error.
	Delete(ref string) error
	// Has tells whether the store holds ref.
	Has(ref string) bool
}

// blobRef matches a store reference (32 lowercase hex digits) where JSON
// holds one as a string: transcripts, entries, images, memory.
var blobRef = regexp.MustCompile(`"([0-9a-f]{32})"`)

// refsIn lists the references a thread's state holds.
func refsIn(st workflows.ThreadState) []string {
	b, err := json.Marshal(st)
	if err != nil {
		return nil
	}
	return refsOf(b)
}

func refsOf(b []byte) []string {
	var out []string
	for _, m := range blobRef.FindAllSubmatch(b, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// historyRefs lists the references a workflow's history holds (the
// transcripts of every step of a turn, not only its last); a history that
// cannot be read lists none.
func historyRefs(ctx context.Context, c client.Client, workflowID string) []string {
	var out []string
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return out
		}
		// Payloads are JSON, kept verbatim in the encoded event.
		if b, err := proto.Marshal(ev); err == nil {
			out = append(out, refsOf(b)...)
		}
	}
	return out
}

// reach is every blob reachable from roots: a manifest names its entries,
// an entry its images.
func reach(blobs BlobStore, roots []string, into map[string]bool) {
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if into[ref] || !blobs.Has(ref) {
			continue
		}
		into[ref] = true
		if b, err := blobs.Get(ref); err == nil && json.Valid(b) {
			queue = append(queue, refsOf(b)...)
		}
	}
}

// sweepBlobs deletes the blobs reachable from roots that no other
// thread's state reaches. The store is content-addressed, so a fork or
// any thread that wrote the same entry shares a blob: every other
// thread's state (open or archived) is read first, and if one cannot be,
// nothing is deleted.
func sweepBlobs(ctx context.Context, c client.Client, namespace string, blobs BlobStore, roots, deleted []string) (int, error) {
	gone := map[string]bool{}
	for _, id := range deleted {
		gone[id] = true
	}
	keep := map[string]bool{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, PageSize: 200, NextPageToken: token, Query: "WorkflowType = 'ThreadWorkflow'",
		})
		if err != nil {
			return 0, fmt.Errorf("store blobs kept: listing threads: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id := e.GetExecution().GetWorkflowId()
			if gone[id] || e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
				continue
			}
			st, err := State(ctx, c, id)
			if errors.Is(err, ErrThreadNotFound) {
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("store blobs kept: reading thread %s: %w", id, err)
			}
			own := refsIn(st)
			if st.Running != "" {
				// Its running turn may have written an entry the same as
				// one of ours since the state was saved.
				return 0, fmt.Errorf("store blobs kept: thread %s is running a turn", id)
			}
			reach(blobs, own, keep)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	mine := map[string]bool{}
	reach(blobs, roots, mine)
	n := 0
	for ref := range mine {
		if keep[ref] {
			continue
		}
		if err := blobs.Delete(ref); err != nil {
			return n, fmt.Errorf("deleting blob %s: %w", ref, err)
		}
		n++
	}
	return n, nil
}
