package appserver

import (
	"context"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// Turns other clients start. A connection follows the turns it starts
// (turn/start) and the one running when it resumes a thread; a turn that
// another client (another connection, another app-server, `interpreter
// exec`) starts later on a thread this connection follows is found by
// reading the idle thread whenever it changes (a backend that implements
// [ThreadChanger] says when; others are read every watchInterval), and
// followed from its first event, so the connection gets its turn/started,
// items and turn/completed even when it ended between two reads.

// watchInterval is how often an idle followed thread is read when the
// backend cannot say when it changes.
var watchInterval = time.Second

// ThreadChanger is a [Backend] that can tell when a thread's view may have
// changed, so an idle followed thread costs no reads.
type ThreadChanger interface {
	// ThreadChanges ticks after each change; it is closed when ctx ends.
	ThreadChanges(ctx context.Context, threadID string) <-chan struct{}
}

// changes is what wakes the watcher of ts.
func (c *conn) changes(ts *threadState) (<-chan struct{}, func()) {
	if tc, ok := c.s.backend.(ThreadChanger); ok {
		return tc.ThreadChanges(ts.ctx, ts.id), func() {}
	}
	tick := time.NewTicker(watchInterval)
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			select {
			case <-ts.ctx.Done():
				return
			case <-tick.C:
				select {
				case ch <- struct{}{}:
				case <-ts.ctx.Done():
					return
				}
			}
		}
	}()
	return ch, tick.Stop
}

// watch looks for other clients' turns on a thread until the connection
// lets the thread go. The turns the thread had when the connection took
// it up are the client's to read (thread/resume, thread/read): [seed]
// marks them, or else the first read does; only later ones are followed.
func (c *conn) watch(ts *threadState) {
	c.background(func() {
		wake, stop := c.changes(ts)
		defer stop()
		for {
			select {
			case <-ts.ctx.Done():
				return
			case _, ok := <-wake:
				if !ok {
					return
				}
			}
			c.releaseEnded(ts)
			if c.busy(ts) {
				continue
			}
			// As the thread is now: each change wakes this again, the
			// thread's taking in a turn's end too.
			v, err := viewNow(ts.ctx, c.s.backend, ts.id)
			if err != nil || v == nil {
				continue
			}
			ids := make([]string, 0, len(v.Turns)+1)
			for _, t := range v.Turns {
				ids = append(ids, t.TurnID)
			}
			c.seed(ts, ids)
			c.goalSeen(ts, v.Goal)
			if v.RunningTurn != "" {
				ids = append(ids, v.RunningTurn)
			}
			for _, id := range ids {
				c.followForeign(ts, id)
			}
		}
	})
}

// seed marks the turns a thread had when this connection took it up, once.
func (c *conn) seed(ts *threadState, turnIDs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts.seeded {
		return
	}
	ts.seeded = true
	for _, id := range turnIDs {
		ts.followed[id] = true
	}
}

// busy: the connection follows a turn of the thread already, or is
// starting one (whose follower comes with the turn/start response).
func (c *conn) busy(ts *threadState) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ts.follower != nil || c.starting[ts.id] > 0
}

// followForeign follows a turn this connection did not start, from its
// first event, unless it follows or followed that turn already.
func (c *conn) followForeign(ts *threadState, turnID string) {
	c.mu.Lock()
	skip := ts.followed[turnID] || c.starting[ts.id] > 0
	c.mu.Unlock()
	if skip {
		return
	}
	log, err := c.s.backend.TurnLog(ts.ctx, turnID)
	if err != nil {
		return
	}
	f := c.newFollower(ts, turnID, []protocol.UserInput{protocol.Text(log.Prompt)}, 0)
	f.start()
}

// startingTurn tells the thread's watcher that this connection is
// starting a turn there; the returned func says it is done.
func (c *conn) startingTurn(threadID string) func() {
	c.mu.Lock()
	c.starting[threadID]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.starting[threadID]--; c.starting[threadID] <= 0 {
			delete(c.starting, threadID)
		}
	}
}
