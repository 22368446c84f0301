package threads

import (
	"context"
	"iter"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A turn's stream: its logged events and its live output (what its
// running commands write, the text and reasoning its model calls stream)
// merged into one ordered sequence of [Update]s, which every front end
// translates into its own protocol.
//
// The order is the one a client can rely on: a command's output comes
// after its item started and before it completed; streamed model text
// comes before the item that completes it, and that item's [Streamed]
// says what already went out, so a client's deltas add up to the item's
// final text without repeating any of it. Output that does not continue
// what was sent (a retried call starting over, bytes the poll missed) is
// held back: the completed item carries it. Characters a poll cut in two
// wait for their end. A read of the log that fails is retried from the
// last event delivered, as many times as the options allow.

// UpdateKind says what an [Update] is.
type UpdateKind int

const (
	// UpdateEvent is an event of the turn's log ([Update.Event]).
	UpdateEvent UpdateKind = iota + 1
	// UpdateOutput is output of the running command [Update.Item]:
	// [Update.Data] as polled, [Update.Text] its complete characters
	// (empty while Data ends inside one).
	UpdateOutput
	// UpdateOpened is the first text a model call streams for step
	// [Update.Step] of kind [Update.Stream] (LiveAgentText or
	// LiveReasoning): the workflow logs its item only once the call
	// returns, so a front end that shows items opens one of its own.
	UpdateOpened
	// UpdateDelta is streamed text ([Update.Text]) of the open step.
	UpdateDelta
	// UpdateClosed is a step whose streamed text ([Update.Text], all of
	// it) no item completes: its call ended without one, or the turn did.
	UpdateClosed
	// UpdateEnd is the last update: the turn's result, or why there is
	// none.
	UpdateEnd
)

// Update is one step of a turn's stream; which fields are set depends on
// Kind.
type Update struct {
	Kind UpdateKind
	// Event is the logged event (UpdateEvent).
	Event workflows.Event
	// Streamed is set on an item's completion (UpdateEvent) when its text
	// (or output) was streamed: what went out before it.
	Streamed *Streamed
	// Item is the command the output belongs to (UpdateOutput).
	Item *workflows.Item
	// Stream is LiveAgentText or LiveReasoning, Step the turn's step of
	// the model call (UpdateOpened, UpdateDelta, UpdateClosed); for
	// UpdateOutput Stream is the command's ("stdout": its stdout and
	// stderr as the model reads them).
	Stream string
	Step   int
	// Text is streamed text (UpdateOutput, UpdateDelta, UpdateClosed).
	Text string
	// Data is the command's output as polled (UpdateOutput).
	Data []byte
	// Result is the turn's result (UpdateEnd), unless Err says why there
	// is none; ErrOutcome: the log was read to its end, the result was
	// not.
	Result     *workflows.TurnResult
	Err        error
	ErrOutcome bool
}

// Streamed is what went out, streamed, of an item a logged event
// completes.
type Streamed struct {
	// Step is the model call's step (messages and reasoning).
	Step int
	// Text is the text (or command output) streamed.
	Text string
	// Rest is the item's text past Text; empty when the item does not
	// continue it (a retried call), whose own text then tells.
	Rest string
}

// LiveReader reads what a turn's running commands wrote and its running
// model call streamed since its previous poll; [LiveOutput] is the one
// over Temporal.
type LiveReader interface {
	Poll(ctx context.Context) ([]LiveChunk, error)
}

// LiveWaker is a [LiveReader] that tells whether its turn wakes its
// followers ([LiveOutput.Wakes]); a stream whose reader is one stops
// polling a turn quiet that long until the turn's history moves.
type LiveWaker interface {
	Wakes() (after time.Duration, ok bool)
}

// Source is where a stream reads its turn: [NewStream]'s reads Temporal;
// front ends build one over their backends (and their tests' fakes).
type Source struct {
	// Follow calls fn for every event after sequence number after, in
	// order, until the turn ends; it returns the turn's result when the
	// end brought it (nil: ask Outcome).
	Follow func(ctx context.Context, after int, fn func(workflows.Event)) (*workflows.TurnResult, error)
	// Outcome waits for the turn's result.
	Outcome func(ctx context.Context) (workflows.TurnResult, error)
	// Live reads the turn's live output; nil: none.
	Live LiveReader
}

// StreamOptions tune a [Stream]; the zero value follows the log alone.
type StreamOptions struct {
	// Live (NewStream only) polls the turn's live output as well.
	Live bool
	// Poll is the tick of live polling (paced by [LivePace]); 100 ms if 0.
	Poll time.Duration
	// Begun: the client has been told the turn began, so live output may
	// go out before the first event does.
	Begun bool
	// Retries is how many failed reads of the log in a row are retried,
	// from the last event delivered, before the stream ends with the
	// error; a pause that grows to 3 s goes before each.
	Retries int
	// FollowError hears each failed read of the log, retried or not;
	// PollError each failed poll of the live output (polling goes on).
	FollowError func(attempt int, err error)
	PollError   func(err error)
}

// Stream is the stream of one turn's updates.
type Stream struct {
	src  Source
	from int
	o    StreamOptions

	mu sync.Mutex // orders the updates; guards what follows
	st streamState
}

// NewStream streams the turn with workflow id turnID over Temporal, from
// the events after sequence number from.
func NewStream(c client.Client, turnID string, from int, o StreamOptions) *Stream {
	src := Source{
		Follow: func(ctx context.Context, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			return Follow(ctx, c, turnID, after, fn)
		},
		Outcome: func(ctx context.Context) (workflows.TurnResult, error) { return Outcome(ctx, c, turnID) },
	}
	if o.Live {
		src.Live = NewLiveOutput(c, turnID)
	}
	return StreamOf(src, from, o)
}

// StreamOf streams a turn read from src, from the events after sequence
// number from.
func StreamOf(src Source, from int, o StreamOptions) *Stream {
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	s := &Stream{src: src, from: from, o: o}
	s.st.begun = o.Begun || from > 0
	return s
}

// Updates runs the stream and yields its updates in order, the last of
// kind UpdateEnd (its Err is ctx's error when ctx ended first). Leaving
// the loop early stops the stream. A stream runs once.
func (s *Stream) Updates(ctx context.Context) iter.Seq[Update] {
	return func(yield func(Update) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan Update, 64)
		go func() {
			defer close(ch)
			s.run(ctx, func(u Update) {
				select {
				case ch <- u:
				case <-ctx.Done():
				}
			})
		}()
		ended := false
		for u := range ch {
			ended = u.Kind == UpdateEnd
			if !yield(u) {
				cancel()
				for range ch {
				}
				return
			}
		}
		if !ended {
			yield(Update{Kind: UpdateEnd, Err: ctx.Err()})
		}
	}
}

// run follows the log and polls the live output, calling send for each
// update under s.mu.
func (s *Stream) run(ctx context.Context, send func(Update)) {
	stopLive := s.startLive(ctx, send)
	end := func(u Update) {
		stopLive()
		u.Kind = UpdateEnd
		s.mu.Lock()
		defer s.mu.Unlock()
		send(u)
	}
	after := s.from
	onEvent := func(e workflows.Event) {
		if ctx.Err() != nil {
			return
		}
		if e.Seq > after {
			after = e.Seq
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, u := range s.st.event(e) {
			send(u)
		}
	}
	// Every move of the turn's history (a workflow task, a command's
	// wake) is a reason to look at the live output again.
	fctx := ctx
	if s.src.Live != nil {
		fctx = withHistoryMoved(ctx, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.st.pace.Moved()
		})
	}
	var known *workflows.TurnResult
	for failures := 0; ; {
		res, err := s.src.Follow(fctx, after, onEvent)
		if ctx.Err() != nil {
			end(Update{Err: ctx.Err()})
			return
		}
		if err == nil {
			known = res
			break
		}
		failures++
		if s.o.FollowError != nil {
			s.o.FollowError(failures, err)
		}
		if failures > s.o.Retries {
			end(Update{Err: err})
			return
		}
		select {
		case <-ctx.Done():
			end(Update{Err: ctx.Err()})
			return
		case <-time.After(min(time.Duration(failures)*200*time.Millisecond, 3*time.Second)):
		}
	}
	stopLive()
	s.mu.Lock()
	for _, u := range []*Update{s.st.reasoning.close(), s.st.text.close()} {
		if u != nil {
			send(*u)
		}
	}
	s.mu.Unlock()
	if known == nil {
		res, err := s.src.Outcome(ctx)
		if err != nil {
			end(Update{Err: err, ErrOutcome: true})
			return
		}
		known = &res
	}
	end(Update{Result: known})
}

// startLive polls the live output until the returned stop is called.
func (s *Stream) startLive(ctx context.Context, send func(Update)) (stop func()) {
	if s.src.Live == nil {
		return func() {}
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.poll(pctx, send)
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

func (s *Stream) poll(ctx context.Context, send func(Update)) {
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	st := &s.st
	last := time.Now()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
		// A tick that comes late (a slow poll, a loaded machine) counts
		// for the ticks it missed.
		n := int((now.Sub(last) + s.o.Poll/2) / s.o.Poll)
		last = now
		s.mu.Lock()
		eras := st.eras()
		// Nothing before the turn's beginning went out; nothing runs while
		// the turn waits for a client.
		skip := !st.pace.DueAfter(!st.begun || len(st.waiting) > 0, n)
		s.mu.Unlock()
		if skip {
			continue
		}
		chunks, err := s.src.Live.Poll(ctx)
		if err != nil {
			if ctx.Err() == nil && s.o.PollError != nil {
				s.o.PollError(err)
			}
			continue
		}
		park := 0
		if w, ok := s.src.Live.(LiveWaker); ok {
			if after, wakes := w.Wakes(); wakes {
				park = ParkTicks(after, s.o.Poll)
			}
		}
		s.mu.Lock()
		st.pace.ParkAfter(park)
		st.pace.Polled(len(chunks) > 0)
		for _, ch := range chunks {
			if ctx.Err() != nil {
				break
			}
			for _, u := range st.chunk(ch, eras) {
				send(u)
			}
		}
		s.mu.Unlock()
	}
}

// Quiet is how many polling ticks in a row brought no news.
func (s *Stream) Quiet() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.pace.Quiet()
}

// Parked tells whether the stream has stopped polling the live output of
// a quiet turn until the turn's history moves ([LivePace.Parked]).
func (s *Stream) Parked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.pace.Parked()
}
