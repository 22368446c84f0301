package activities

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// handoffLifetime bounds a handed-off call: the stream's own lifetime,
// and how long it waits to be taken over before it is dropped (the turn
// was interrupted, or the taking activity went to another worker).
const handoffLifetime = 10 * time.Minute

// handoffUnclaimed is how long a handed-off call waits to be taken over.
const handoffUnclaimed = time.Minute

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
	h.calls[key] = c
	h.mu.Unlock()
	time.AfterFunc(handoffUnclaimed, func() {
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
	delete(h.calls, key)
	return c
}
