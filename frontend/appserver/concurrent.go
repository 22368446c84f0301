package appserver

import "encoding/json"

// A connection reads its requests in order and answers most of them
// before it reads the next. turn/start is the exception: its answer waits
// for the thread to take the turn in (for a continuation, for the model's
// first answer too), so an orchestrator that starts turns on fifty
// threads at once would see them start one after another. Each turn/start
// runs on its own goroutine instead, after the earlier turn/starts of
// the same thread (a second one there is steered into, or queued behind,
// the first), and its answer comes when it is ready, as Codex's does.

// concurrentMethods are the methods served beside the connection's other
// requests, in order per thread.
var concurrentMethods = map[string]bool{"turn/start": true}

// serveInOrder runs f after the functions given earlier for the same
// thread have run, on a goroutine the connection waits for on exit.
func (c *conn) serveInOrder(threadID string, f func()) {
	done := make(chan struct{})
	c.mu.Lock()
	if c.turnStarts == nil {
		c.turnStarts = map[string]chan struct{}{}
	}
	prev := c.turnStarts[threadID]
	c.turnStarts[threadID] = done
	c.mu.Unlock()
	c.starts.Add(1)
	c.background(func() {
		defer c.starts.Done()
		if prev != nil {
			<-prev
		}
		f()
		close(done)
		c.mu.Lock()
		if c.turnStarts[threadID] == done {
			delete(c.turnStarts, threadID)
		}
		c.mu.Unlock()
	})
}

// threadOfParams is the threadId of a request's params ("" when it has
// none: the handler then answers the error, in order).
func threadOfParams(params json.RawMessage) string {
	var p struct {
		ThreadID json.RawMessage `json:"threadId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var id string
	if json.Unmarshal(p.ThreadID, &id) != nil {
		return ""
	}
	return id
}
