package appserver

import (
	"context"
	"errors"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
)

// Ephemeral threads (thread/start `ephemeral: true`; the Codex TUI starts
// one to name its session, `threadSource: thread_title`). Codex keeps such
// a thread in memory only: it is in no list and gone with its server.
// Here every thread is a workflow, so an ephemeral one is archived once
// the connection that started it unsubscribes from it or closes, after
// any turn it runs has ended: it leaves thread/list, `interpreter threads
// list` and the UI's open threads. An app-server that dies first leaves
// it open (archive it by hand).

// ephemeralWait bounds how long the cleanup waits for the thread's
// running turn to end.
const ephemeralWait = 30 * time.Minute

// dropEphemeral archives an ephemeral thread in the background; it
// outlives the connection that asked for it.
func (s *Server) dropEphemeral(threadID string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), ephemeralWait)
		defer cancel()
		for attempt := 0; attempt < 5 && ctx.Err() == nil; attempt++ {
			err := s.backend.Archive(ctx, threadID)
			if err == nil {
				return
			}
			if !errors.Is(err, threads.ErrTurnRunning) && !errors.Is(err, threads.ErrTurnWaiting) {
				s.log.Warn("archiving an ephemeral thread", "thread", threadID, "err", err)
				return
			}
			info, err := s.backend.Thread(ctx, threadID)
			if err != nil {
				s.log.Warn("reading an ephemeral thread", "thread", threadID, "err", err)
				return
			}
			if info.View != nil && info.View.RunningTurn != "" {
				_, _ = s.backend.Outcome(ctx, info.View.RunningTurn)
			}
		}
	}()
}

// ephemeralThreads are the ephemeral threads this connection started and
// still follows.
func (c *conn) ephemeralThreads() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []string
	for id, ts := range c.threads {
		if ts.ephemeral {
			ids = append(ids, id)
		}
	}
	return ids
}
