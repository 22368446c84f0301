package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// eventLog is a turn's numbered event log. Readers block on an update
// until it grows, which answers with the new events when they are small
// (they are then copied into history once); bigger ones, or a reader
// that fell behind, query pages of it.
type eventLog struct {
	turnID  string
	events  []Event
	last    int
	done    bool
	closing bool
	// result is the turn's result once done, for waiting readers.
	result *TurnResult
	// heard is set once the model has answered in this turn, once a
	// wait's hold ran out, or when the turn resumed from a previous run:
	// no later wait holds.
	heard bool
	// lastAt is when the last event was added, kept when now is set (the
	// stall timeout needs it).
	lastAt time.Time
	now    func() time.Time
}

func newEventLog(carried []Event, last int, turnID string) *eventLog {
	return &eventLog{turnID: turnID, events: carried, last: last}
}

func (l *eventLog) add(e Event) {
	l.last++
	e.Seq = l.last
	e.TurnID = l.turnID
	l.events = append(l.events, e)
	if l.now != nil {
		l.lastAt = l.now()
	}
}

func (l *eventLog) first() int {
	if len(l.events) == 0 {
		return l.last + 1
	}
	return l.events[0].Seq
}

func (l *eventLog) page(req EventsRequest) EventsPage {
	p := EventsPage{Last: l.last, First: l.first(), Done: l.done}
	for _, e := range l.events {
		if e.Seq > req.After {
			p.Events = append(p.Events, e)
			if req.Limit > 0 && len(p.Events) >= req.Limit {
				p.Done = false
				break
			}
		}
	}
	if p.Done {
		// The turn's end, before its close: a follower answers with it
		// rather than after the close task (see [turn.closeApart]).
		p.Result = l.result
	}
	return p
}

// tail is what continue-as-new carries: the last n events, within a byte
// budget (command output counts), so the new run's input stays far below
// Temporal's payload limit.
func (l *eventLog) tail(n, budget int) ([]Event, int) {
	ev := l.events
	if len(ev) > n {
		ev = ev[len(ev)-n:]
	}
	size, i := 0, len(ev)
	for i > 0 {
		sz := eventSize(ev[i-1])
		if size+sz > budget {
			break
		}
		size += sz
		i--
	}
	return append([]Event(nil), ev[i:]...), l.last
}

func (l *eventLog) register(ctx workflow.Context) error {
	// A command's worker wakes the turn's followers through its history
	// ([SignalLiveWake]); the turn takes those signals and does nothing
	// else with them (no command, so no replay differs).
	wakes := workflow.GetSignalChannel(ctx, SignalLiveWake)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for wakes.Receive(ctx, nil) {
		}
	})
	if err := workflow.SetQueryHandler(ctx, QueryEvents, func(req EventsRequest) (EventsPage, error) {
		return l.page(req), nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandler(ctx, UpdateWaitEvents, func(ctx workflow.Context, req WaitRequest) (WaitResponse, error) {
		timeout := time.Duration(req.TimeoutMs) * time.Millisecond
		if timeout <= 0 || timeout > time.Minute {
			timeout = 30 * time.Second
		}
		if hold := time.Duration(req.HoldMs) * time.Millisecond; hold > 0 && hold < timeout && !l.heard {
			ok, err := workflow.AwaitWithTimeout(ctx, hold, func() bool {
				return l.heard && l.last > req.After || l.done || l.closing
			})
			if err != nil {
				return WaitResponse{Last: l.last, Done: l.done}, err
			}
			// A slow first answer: the opening goes out now, and the
			// reader's next waits do not hold again (each would cost a
			// timer and a workflow task of its own).
			l.heard = l.heard || !ok
			timeout -= hold
		}
		ready := func() bool { return l.last > req.After || l.done || l.closing }
		var err error
		if req.HoldMs == 0 || !ready() {
			// A reader that holds skips the timer when the answer is
			// already there: one made and dropped in the workflow task
			// that ends the turn would still be recorded.
			_, err = workflow.AwaitWithTimeout(ctx, timeout, ready)
		}
		resp := WaitResponse{Last: l.last, Done: l.done, Events: l.since(req.After)}
		if l.done && resp.Events != nil {
			resp.Result = l.result
		}
		return resp, err
	})
}

// waitEventsBudget bounds the events a [WaitResponse] carries: they are
// copied into the turn's history with the update's result.
const waitEventsBudget = 16 << 10

// since returns the events after seq after when they all fit the budget
// (nil otherwise, or when some were dropped at continue-as-new).
func (l *eventLog) since(after int) []Event {
	if after+1 < l.first() {
		return nil
	}
	var out []Event
	size := 0
	for _, e := range l.events {
		if e.Seq <= after {
			continue
		}
		if size += eventSize(e); size > waitEventsBudget || len(out) >= 64 {
			return nil
		}
		out = append(out, e)
	}
	return out
}

// eventSize bounds the JSON size of an event: its strings as encoded
// (control characters and HTML-sensitive bytes take six bytes) plus a
// fixed allowance for the rest. Computed by hand because workflow code
// may not use encoding/json (workflowcheck flags its internals).
func eventSize(e Event) int {
	n := 300 + jsonLen(e.Error)
	if e.Retry != nil {
		n += 120
	}
	if it := e.Item; it != nil {
		n += jsonLen(it.Text) + jsonLen(it.AggregatedOutput) + jsonLen(it.Command) + jsonLen(it.Cwd) + jsonLen(it.Message)
		n += jsonLen(it.Server) + jsonLen(it.Tool) + jsonLen(it.Arguments) + jsonLen(it.Result)
		for _, c := range it.Changes {
			n += 40 + jsonLen(c.Path)
		}
		for _, t := range it.Items {
			n += 40 + jsonLen(t.Text)
		}
	}
	if a := e.Approval; a != nil {
		n += 400 + jsonLen(a.Command) + jsonLen(a.Cwd) + jsonLen(a.Diff) + jsonLen(a.Reason) + jsonLen(a.Answer) + jsonLen(a.Note)
	}
	return n
}

func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c == '"' || c == '\\':
			n += 2
		default:
			n++
		}
	}
	return n
}
