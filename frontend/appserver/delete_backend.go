package appserver

import (
	"context"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// DeleteThread deletes a thread, its turns and its sub-agents, and the
// store blobs only they reference.
func (a *TemporalBackend) DeleteThread(ctx context.Context, threadID string) (threads.Deleted, error) {
	return threads.Delete(ctx, a.Client, a.Namespace, threadID, a.Blobs)
}

// InjectItems adds entries to an idle thread's history.
func (a *TemporalBackend) InjectItems(ctx context.Context, threadID string, entries []workflows.Entry) error {
	return threads.InjectItems(ctx, a.Client, threadID, entries)
}
