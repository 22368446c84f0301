package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
)

// ThreadDeleter is a [Backend] that deletes threads (thread/delete).
type ThreadDeleter interface {
	DeleteThread(ctx context.Context, threadID string) (threads.Deleted, error)
}

// deleteTimeout bounds a deletion: a running turn is interrupted and
// waited for first.
const deleteTimeout = 2 * time.Minute

// threadDelete deletes a thread for good (its workflow runs, turns,
// sub-agents and store blobs). As Codex's server does, the thread goes
// notLoaded, the response follows, then thread/deleted. It answers from
// its own goroutine: waiting for a running turn to end takes a while.
func (c *conn) threadDelete(id json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	d, ok := c.s.backend.(ThreadDeleter)
	if !ok {
		return nil, invalidRequest("thread/delete is not supported by this server")
	}
	c.background(func() {
		ctx, cancel := context.WithTimeout(c.ctx, deleteTimeout)
		defer cancel()
		gone, err := d.DeleteThread(ctx, p.ThreadID)
		switch {
		case errors.Is(err, threads.ErrThreadNotFound):
			c.fail(id, invalidRequest("no rollout found for thread id %s", p.ThreadID))
			return
		case err != nil:
			c.fail(id, internalError("deleting thread %s: %v", p.ThreadID, err))
			return
		}
		if gone.BlobsKept != "" {
			c.s.log.Info("thread deleted; its store blobs were kept", "thread", p.ThreadID, "reason", gone.BlobsKept)
		}
		for _, t := range gone.Threads {
			if c.unsubscribe(t) {
				c.notify(notice(protocol.ThreadStatusChanged{ThreadID: t, Status: statusNotLoaded}))
			}
		}
		c.respond(id, protocol.Empty{})
		for _, t := range gone.Threads {
			c.notify(notice(protocol.ThreadDeleted{ThreadID: t}))
		}
	})
	return nil, nil
}
