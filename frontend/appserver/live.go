package appserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// LiveReader reads what a turn's running commands wrote and its running
// model call streamed since its previous poll; [threads.LiveOutput] is
// the one over Temporal.
type LiveReader = threads.LiveReader

// follower streams one turn's notifications to its connection, translated
// from the turn's stream ([threads.Stream]: its event log from a sequence
// number on, merged with its live output). It survives worker restarts
// (the log is durable) and backend hiccups (the stream reads again from
// the last event it sent).
//
// The live output goes out as item/commandExecution/outputDelta,
// item/agentMessage/delta and item/reasoning/summaryTextDelta while it
// happens, in order with the log's notifications: a delta never comes
// after its item's item/completed, and the completion carries only the
// text not streamed yet, so an item's deltas add up to its final text.
//
// Streamed model text has no item yet: the workflow logs the agent
// message as one completed item once the model call returns. So the first
// streamed text of a step opens an item of this server's own
// ("<turn>-msg-<step>", "<turn>-rs-<step>"): item/started, then the
// deltas, and the workflow's item/completed goes out under that id (with
// the rest of the text as a last delta). thread/read and thread/resume,
// built from the log, show the message under the workflow's id. A step
// whose streamed text never becomes an item (its call failed) has its
// item completed with the text streamed, at the latest when the turn ends.
type follower struct {
	c        *conn
	ts       *threadState
	threadID string
	turnID   string
	content  []protocol.UserInput
	after    int
	begun    bool
	prev     *follower
	done     chan struct{}
	tr       *translator
	// known is the turn's result when its thread answered the start with
	// it (a quick turn): the stream tells its Tail, and reads nothing.
	known *workflows.TurnResult
	// knownTotal is the response that told known, with the thread's
	// token totals once it took known in.
	knownTotal *workflows.StartTurnResponse

	startedAt time.Time

	mu       sync.Mutex
	finished bool
	waiters  []func()
}

// newFollower registers a follower of a turn, to be started once the
// response that announces the turn is written. after > 0 means the turn's
// beginning was already sent (by this process or a previous one).
func (c *conn) newFollower(ts *threadState, turnID string, content []protocol.UserInput, after int) *follower {
	f := &follower{c: c, ts: ts, threadID: ts.id, turnID: turnID, content: content, after: after, begun: after > 0,
		done: make(chan struct{})}
	f.tr = newTranslator(ts.id, turnID, c.nowMs)
	c.mu.Lock()
	f.prev, ts.follower = ts.follower, f
	ts.followed[turnID] = true
	c.mu.Unlock()
	return f
}

func (f *follower) start() { f.c.background(f.run) }

// onFinish runs fn just before the turn's turn/completed is sent; false
// if that already happened.
func (f *follower) onFinish(fn func()) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return false
	}
	f.waiters = append(f.waiters, fn)
	return true
}

// followRetries is how many failed reads of a turn's log in a row the
// follower retries before it gives the turn up as lost.
const followRetries = 29

func (f *follower) run() {
	c := f.c
	defer func() {
		c.mu.Lock()
		if f.ts.follower == f {
			f.ts.follower = nil
		}
		c.mu.Unlock()
		close(f.done)
	}()
	if f.prev != nil {
		// The previous turn's last notifications go first.
		select {
		case <-f.prev.done:
		case <-f.ts.ctx.Done():
			return
		}
	}
	if f.after > 0 {
		// Picked up mid-turn: ask again what a previous server left open.
		c.askPending(f.turnID)
	} else if f.content != nil {
		// Our own new turn has started (the thread accepted it): say so
		// now, rather than with its first events, which a slow model
		// keeps back for a moment (see workflows.WaitRequest.HoldMs).
		f.begin()
	}
	// The thread's context: it ends with the connection or with
	// thread/unsubscribe, and the turn goes on in its workflow.
	ctx := f.ts.ctx
	b := c.s.backend
	src := threads.Source{
		Follow: func(ctx context.Context, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			return b.Follow(ctx, f.turnID, after, fn)
		},
		Outcome: func(ctx context.Context) (workflows.TurnResult, error) { return b.Outcome(ctx, f.turnID) },
		Live:    b.Live(f.turnID),
	}
	if f.known != nil {
		src = threads.KnownSource(*f.known)
	}
	stream := threads.StreamOf(src, f.after, threads.StreamOptions{
		Poll: c.s.opts.LivePoll, Begun: f.begun, Retries: followRetries,
		FollowError: func(attempt int, err error) { c.logf("following turn %s (attempt %d): %v", f.turnID, attempt, err) },
		PollError:   func(err error) { c.logf("reading the live output of %s: %v", f.turnID, err) },
	})
	for u := range stream.Updates(ctx) {
		if ctx.Err() != nil {
			// Unsubscribed (or gone): nothing more goes to this
			// connection.
			return
		}
		f.update(u)
	}
}

// update sends the notifications of one update of the turn's stream.
func (f *follower) update(u threads.Update) {
	c := f.c
	switch u.Kind {
	case threads.UpdateEvent:
		f.onEvent(u)
	case threads.UpdateOutput:
		if u.Text != "" {
			c.notify(notice(protocol.CommandOutputDelta(f.threadID, f.turnID, u.Item.ID, u.Text)))
		}
	case threads.UpdateOpened:
		id, typ := f.streamItem(u.Stream, u.Step)
		c.notify(f.tr.itemStarted(itemJSON(&workflows.Item{ID: id, Type: typ})))
		if u.Stream == threads.LiveReasoning {
			// One summary part per step: an answer's parts are joined
			// into one text, as the item holds them.
			c.notify(notice(protocol.ReasoningSummaryPartAdded{ThreadID: f.threadID, TurnID: f.turnID, ItemID: id, SummaryIndex: 0}))
		}
	case threads.UpdateDelta:
		id, _ := f.streamItem(u.Stream, u.Step)
		c.notify(f.streamDelta(u.Stream, id, u.Text))
	case threads.UpdateClosed:
		id, typ := f.streamItem(u.Stream, u.Step)
		c.notify(f.tr.itemCompleted(itemJSON(&workflows.Item{ID: id, Type: typ, Text: u.Text})))
	case threads.UpdateEnd:
		f.end(u)
	}
}

// end finishes the turn the stream ended with; nothing when the thread's
// context ended.
func (f *follower) end(u threads.Update) {
	if f.ts.ctx.Err() != nil {
		return
	}
	switch {
	case u.Err != nil && u.ErrOutcome:
		f.finish(workflows.TurnResult{TurnID: f.turnID, Status: workflows.StatusFailed, Error: fmt.Sprintf("reading the turn's result: %v", u.Err)})
	case u.Err != nil:
		f.finish(workflows.TurnResult{TurnID: f.turnID, Status: workflows.StatusFailed,
			Error: fmt.Sprintf("lost track of the turn: %v", u.Err)})
	default:
		f.finish(*u.Result)
	}
}

func (f *follower) onEvent(u threads.Update) {
	e := u.Event
	switch e.Type {
	case workflows.EventTurnStarted:
		f.begin()
		return
	case workflows.EventTurnCompleted, workflows.EventTurnFailed:
		return
	}
	f.begin()
	f.goalEvent(e)
	for _, n := range f.eventNotes(u) {
		f.c.notify(n)
	}
	f.requests(e)
}

// requests asks the client what the turn waits for, and ends questions
// the turn resolved otherwise.
func (f *follower) requests(e workflows.Event) {
	c := f.c
	switch {
	case e.Type == workflows.EventApprovalRequested && e.Approval != nil:
		c.askApproval(*e.Approval)
	case e.Type == workflows.EventApprovalResolved && e.Approval != nil:
		c.settle(askKey(f.turnID, e.Approval.ItemID))
	case e.Type == workflows.EventAgentApprovalRequested && e.Approval != nil:
		// A sub-agent's: the request names its thread, turn and item,
		// and the answer goes to its turn.
		c.askApproval(*e.Approval)
	case e.Type == workflows.EventAgentApprovalResolved && e.Approval != nil:
		c.settle(askKey(e.Approval.TurnID, e.Approval.ItemID))
	case e.Type == workflows.EventDynamicRequested && e.Item != nil && e.Item.Dynamic != nil:
		c.askDynamic(*e.Item.Dynamic)
	case e.Type == workflows.EventItemCompleted && e.Item != nil && e.Item.Type == workflows.ItemDynamicToolCall:
		c.settle(askKey(f.turnID, e.Item.ID))
	case e.Type == workflows.EventItemCompleted && e.Item != nil && e.Item.Type == workflows.ItemCollabAgentToolCall:
		c.announceSubAgent(e.Item)
		c.followAgents(e.Item)
	}
}
