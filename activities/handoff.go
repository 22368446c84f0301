package activities

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// handoffLifetime bounds the stream of a call that may be handed off (as
// an activity's start-to-close timeout bounds any other call).
const handoffLifetime = 10 * time.Minute

// handoffUnclaimed is how long a handed-off call waits to be taken over
// before it is cancelled and dropped (the turn was interrupted, or the
// workflow task that held the handoff failed): a little longer than the
// taking activity's schedule-to-start timeout, after which the turn makes
// the call afresh anyway.
const handoffUnclaimed = 15 * time.Second

// handoffs holds the model calls that outran their local activity's
// budget until the regular activity that goes on with them takes them.
type handoffs struct {
	mu    sync.Mutex
	calls map[string]*modelCall
	// prefix tells this process's keys from an earlier one's, so a key
	// recorded before a restart never finds a newer call.
	prefix string
	n      atomic.Int64
}

func newHandoffs() *handoffs {
	return &handoffs{calls: map[string]*modelCall{}, prefix: strconv.FormatInt(time.Now().UnixNano(), 36)}
}

// handoffs returns the worker's registry, made on first use.
func (a *Activities) handoffs() *handoffs {
	a.handoffOnce.Do(func() { a.handoff = newHandoffs() })
	return a.handoff
}

// put keeps c and returns its key; a call not taken within
// handoffUnclaimed is cancelled and dropped.
func (h *handoffs) put(c *modelCall) string {
	key := fmt.Sprintf("%s/%s/%d/%d", h.prefix, c.in.TurnID, c.in.Step, h.n.Add(1))
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[key] = c
	c.unclaimed = time.AfterFunc(handoffUnclaimed, func() {
		if c := h.take(key); c != nil {
			c.cancel()
		}
	})
	return key
}

// take removes and returns the call with key, nil when there is none.
func (h *handoffs) take(key string) *modelCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.calls[key]
	if c != nil {
		delete(h.calls, key)
		c.unclaimed.Stop()
	}
	return c
}
