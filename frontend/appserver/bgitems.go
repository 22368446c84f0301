package appserver

import (
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A background terminal's command item stays open, as in Codex's server:
// an exec_command that yields while its process still runs sends
// item/started (source unifiedExecStartup, with its processId) and its
// output, but no item/completed; that comes when the process is gone
// (its exit, thread/backgroundTerminals/terminate or /clean), after the
// turn's turn/completed if need be, under the turn that started it. The
// Codex TUI lists exactly these items in /ps and its footer. The workflow
// logs the item completed when exec_command returns, so each connection
// holds that completion back (ts.held) until the session leaves the
// thread's background terminals.

// heldItem is an item/completed a connection has not sent yet.
type heldItem struct {
	processID string
	turnID    string
	note      protocol.ItemCompleted
}

// sessionSource is the protocol's source of a command item: an
// exec_command session (it has a process id) is unified exec's.
func sessionSource(it *workflows.Item) string {
	if it.ProcessID != "" {
		return "unifiedExecStartup"
	}
	return "agent"
}

// stillRunning: the item is an exec_command that returned while its
// process ran on (the workflow keeps it as a session).
func stillRunning(it *workflows.Item) bool {
	return it.Type == workflows.ItemCommandExecution && it.ProcessID != "" &&
		it.Status == workflows.StatusCompleted && it.ExitCode == nil
}

// holdCompletion takes a still-running command's item/completed out of
// notes and keeps it on ts until its session ends.
func (f *follower) holdCompletion(it *workflows.Item, notes []notification) []notification {
	if !stillRunning(it) {
		return notes
	}
	if _, ok := f.c.s.backend.(TerminalsBackend); !ok {
		return notes
	}
	out := notes[:0:0]
	for _, n := range notes {
		done, ok := n.Params.(protocol.ItemCompleted)
		if !ok || n.Method != "item/completed" {
			out = append(out, n)
			continue
		}
		f.c.mu.Lock()
		if f.ts.held == nil {
			f.ts.held = map[string]heldItem{}
		}
		f.ts.held[it.ID] = heldItem{processID: it.ProcessID, turnID: f.turnID, note: done}
		f.c.mu.Unlock()
	}
	return out
}

// releaseEnded sends the held completions of sessions no longer among
// the thread's background terminals. A running turn's own sessions are
// listed only once the thread has taken in its end, so its items wait
// for that.
func (c *conn) releaseEnded(ts *threadState) {
	c.mu.Lock()
	n := len(ts.held)
	var running string
	if f := ts.follower; f != nil {
		running = f.turnID
	}
	c.mu.Unlock()
	if n == 0 {
		return
	}
	tb, ok := c.s.backend.(TerminalsBackend)
	if !ok {
		return
	}
	// The thread takes in a turn's open sessions when it takes in the
	// turn's end, which may come after the turn's own turn/completed:
	// until its view lists the turn as ended, the list may lack them.
	// (Read as it is now: the thread's taking the end in wakes this again.)
	v, err := viewNow(ts.ctx, c.s.backend, ts.id)
	if err != nil || v == nil {
		return
	}
	ended := map[string]bool{}
	for _, t := range v.Turns {
		ended[t.TurnID] = t.TurnID != v.RunningTurn
	}
	list, err := tb.BackgroundTerminals(ts.ctx, ts.id)
	if err != nil {
		return
	}
	open := map[string]bool{}
	for _, t := range list {
		open[t.ItemID] = true
	}
	// A terminate or clean in flight completes what it ends itself,
	// failed, after its response: leave the thread's items to it.
	done := func(id string, h heldItem) bool {
		return ts.killing == 0 && !open[id] && h.turnID != running && ended[h.turnID]
	}
	c.mu.Lock()
	some := false
	for id, h := range ts.held {
		some = some || done(id, h)
	}
	c.mu.Unlock()
	if !some {
		return
	}
	endings := c.endings(ts, tb)
	c.releaseHeld(ts, false, done, func(id string) (workflows.EndedTerminal, bool) {
		e, ok := endings[id]
		return e, ok
	})
}

// endings are how the thread's last background terminals ended, by item.
// A thread that cannot say (an older run) gets the item as it was.
func (c *conn) endings(ts *threadState, tb TerminalsBackend) map[string]workflows.EndedTerminal {
	out := map[string]workflows.EndedTerminal{}
	list, err := tb.EndedTerminals(ts.ctx, ts.id)
	if err != nil {
		return out
	}
	for _, e := range list {
		out[e.ItemID] = e
	}
	return out
}

// finishItem completes a held command item with how its session ended:
// exit code, duration and the output after its yield, as Codex's server
// reports the process's end.
func finishItem(item protocol.CommandExecutionItem, e workflows.EndedTerminal) protocol.CommandExecutionItem {
	item.ExitCode = e.ExitCode
	if e.ExitCode == nil || *e.ExitCode != 0 {
		item.Status = protocol.StatusFailed
	}
	if e.DurationMs > 0 {
		d := e.DurationMs
		item.DurationMs = &d
	}
	before := ""
	if item.AggregatedOutput != nil {
		before = *item.AggregatedOutput
	}
	all := joinOutput(before, e.Output)
	item.AggregatedOutput = &all
	return item
}

// joinOutput puts the output a command showed at its yield before its
// last output (the last bytes of everything it printed), which may
// begin inside the first: the overlap is kept once.
func joinOutput(before, tail string) string {
	if tail == "" {
		return before
	}
	for p := 0; p < len(before); p++ {
		if before[p] == tail[0] && strings.HasPrefix(tail, before[p:]) {
			return before[:p] + tail
		}
	}
	return before + tail
}

// releaseHeld sends and forgets the held completions that end picks; killed
// ones (terminate, clean) are failed, as Codex reports a killed process.
func (c *conn) releaseHeld(ts *threadState, killed bool, end func(itemID string, h heldItem) bool,
	ending func(itemID string) (workflows.EndedTerminal, bool)) {
	c.mu.Lock()
	var due []protocol.ItemCompleted
	var ids []string
	for id, h := range ts.held {
		if end(id, h) {
			due = append(due, h.note)
			ids = append(ids, id)
			delete(ts.held, id)
		}
	}
	c.mu.Unlock()
	for i, d := range due {
		item, ok := d.Item.(protocol.CommandExecutionItem)
		switch {
		case !ok:
		case killed:
			item.Status = protocol.StatusFailed
			d.Item = item
		case ending != nil:
			if e, found := ending(ids[i]); found {
				d.Item = finishItem(item, e)
			}
		}
		d.CompletedAtMs = c.nowMs()
		c.notify(notice(d))
	}
}

// killing marks a terminate or clean of threadID in flight (see
// releaseEnded); release ends the mark, after the request's own
// completions are sent, and looks again at the items left held (a
// session that exited meanwhile was skipped).
func (c *conn) killing(threadID string) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := c.threads[threadID]
	if ts == nil {
		return func() {}
	}
	ts.killing++
	return func() {
		c.mu.Lock()
		ts.killing--
		left := ts.killing == 0 && len(ts.held) > 0
		c.mu.Unlock()
		if left {
			c.background(func() { c.releaseEnded(ts) })
		}
	}
}

// releaseThread sends the held completions of a thread this connection
// follows whose sessions a request of its ended (processID "": all).
func (c *conn) releaseThread(threadID, processID string) {
	c.mu.Lock()
	ts := c.threads[threadID]
	c.mu.Unlock()
	if ts == nil {
		return
	}
	c.releaseHeld(ts, true, func(_ string, h heldItem) bool { return processID == "" || h.processID == processID }, nil)
}
