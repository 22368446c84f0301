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

// handoffs holds work that outran its local activity's budget (a model
// call still streaming, a command still running) until the regular
// activity that goes on with it takes it. What no activity takes within
// its unclaimed time is dropped.
type handoffs[T comparable] struct {
	mu    sync.Mutex
	items map[string]handoffItem[T]
	// prefix tells this process's keys from an earlier one's, so a key
	// recorded before a restart never finds newer work.
	prefix    string
	n         atomic.Int64
	unclaimed time.Duration
	// name is the readable part of an item's key; drop ends an item
	// nobody took.
	name func(T) string
	drop func(T)
}

type handoffItem[T any] struct {
	v     T
	timer *time.Timer
}

func newHandoffs[T comparable](unclaimed time.Duration, name func(T) string, drop func(T)) *handoffs[T] {
	return &handoffs[T]{items: map[string]handoffItem[T]{}, prefix: strconv.FormatInt(time.Now().UnixNano(), 36),
		unclaimed: unclaimed, name: name, drop: drop}
}

// handoffs returns the worker's registry of model calls, made on first use.
func (a *Activities) handoffs() *handoffs[*modelCall] {
	a.handoffOnce.Do(func() {
		a.handoff = newHandoffs(handoffUnclaimed,
			func(c *modelCall) string { return fmt.Sprintf("%s/%d", c.in.TurnID, c.in.Step) },
			func(c *modelCall) { c.cancel() })
	})
	return a.handoff
}

// put keeps v and returns its key.
func (h *handoffs[T]) put(v T) string {
	key := fmt.Sprintf("%s/%s/%d", h.prefix, h.name(v), h.n.Add(1))
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items[key] = handoffItem[T]{v: v, timer: time.AfterFunc(h.unclaimed, func() {
		var none T
		if v := h.take(key); v != none {
			h.drop(v)
		}
	})}
	return key
}

// take removes and returns the item with key, the zero value when there
// is none.
func (h *handoffs[T]) take(key string) T {
	h.mu.Lock()
	defer h.mu.Unlock()
	it, ok := h.items[key]
	if !ok {
		var none T
		return none
	}
	delete(h.items, key)
	it.timer.Stop()
	return it.v
}
