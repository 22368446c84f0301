package threads

import (
	"context"
	"fmt"
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
	var known *workflows.TurnResult
	for failures := 0; ; {
		res, err := s.src.Follow(ctx, after, onEvent)
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
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		eras := st.eras()
		// Nothing before the turn's beginning went out; nothing runs while
		// the turn waits for a client.
		skip := !st.pace.Due(!st.begun || len(st.waiting) > 0)
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
		s.mu.Lock()
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

// streamState is what a stream knows of its turn: the running command,
// the open model streams, the approvals it waits for.
type streamState struct {
	begun bool
	// command is the running command item; commandSent its output sent
	// so far and commandCut the start of a character a poll cut.
	// commandEra counts command completions (and terminal
	// interactions), so output polled across one is dropped.
	command     *workflows.Item
	commandSent []byte
	commandCut  []byte
	commandEra  int

	text, reasoning modelStream

	// waiting are the approvals the turn waits for: nothing runs then,
	// so nothing is polled. pace slows polling down while nothing
	// happens.
	waiting map[string]bool
	pace    LivePace
}

// modelStream is one kind of text a model call streams before the
// workflow logs its item.
type modelStream struct {
	kind string
	open *openStep
	// era counts the workflow's items of this kind; closed is the last
	// step whose item came.
	era, closed int
}

type openStep struct {
	step int
	text []byte
	cut  []byte
}

type streamEras struct{ command, text, reasoning int }

func (st *streamState) eras() streamEras {
	return streamEras{st.commandEra, st.text.era, st.reasoning.era}
}

// event notes what one logged event opens or closes and returns its
// update.
func (st *streamState) event(e workflows.Event) []Update {
	st.begun = true
	st.pace.Moved()
	if st.text.kind == "" {
		st.text.kind, st.reasoning.kind = LiveAgentText, LiveReasoning
	}
	if a := e.Approval; a != nil {
		switch e.Type {
		case workflows.EventApprovalRequested:
			if st.waiting == nil {
				st.waiting = map[string]bool{}
			}
			st.waiting[a.ItemID] = true
		case workflows.EventApprovalResolved:
			delete(st.waiting, a.ItemID)
		}
	}
	u := Update{Kind: UpdateEvent, Event: e}
	it := e.Item
	if it == nil {
		return []Update{u}
	}
	switch {
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemStarted:
		c := *it
		st.command, st.commandSent, st.commandCut = &c, nil, nil
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventTerminalInteraction:
		// A write_stdin into a session: what the session prints while it
		// waits is its command's output again (the exec_command's item),
		// from the start of this call's output.
		c := *it
		st.command, st.commandSent, st.commandCut = &c, nil, nil
		st.commandEra++
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemCompleted:
		if st.command != nil && st.command.ID == it.ID {
			sent := string(st.commandSent)
			u.Streamed = &Streamed{Text: sent, Rest: rest(it.AggregatedOutput, sent)}
		}
		st.command, st.commandSent, st.commandCut = nil, nil, nil
		st.commandEra++
	case it.Type == workflows.ItemReasoning && e.Type == workflows.EventItemCompleted:
		u.Streamed = st.reasoning.done(it)
	case it.Type == workflows.ItemAgentMessage && e.Type == workflows.EventItemCompleted:
		u.Streamed = st.text.done(it)
	}
	return []Update{u}
}

// rest is text past sent, "" when text does not continue it.
func rest(text, sent string) string {
	if len(text) > len(sent) && text[:len(sent)] == sent {
		return text[len(sent):]
	}
	return ""
}

// done maps the workflow's item onto the step that streamed; nil when
// nothing did.
func (s *modelStream) done(it *workflows.Item) *Streamed {
	s.era++
	m := s.open
	if m == nil {
		return nil
	}
	s.open, s.closed = nil, max(s.closed, m.step)
	return &Streamed{Step: m.step, Text: string(m.text), Rest: rest(it.Text, string(m.text))}
}

// close ends the open step, which no item completes; nil if none is open.
func (s *modelStream) close() *Update {
	if s.open == nil {
		return nil
	}
	u := &Update{Kind: UpdateClosed, Stream: s.kind, Step: s.open.step, Text: string(s.open.text)}
	s.open = nil
	return u
}

// chunk turns polled output into updates; eras are the state's as the
// poll began, so output polled across an item's end is dropped.
func (st *streamState) chunk(ch LiveChunk, eras streamEras) []Update {
	if st.text.kind == "" {
		st.text.kind, st.reasoning.kind = LiveAgentText, LiveReasoning
	}
	switch ch.Kind {
	case LiveCommandOutput:
		return st.commandOutput(ch, eras.command)
	case LiveAgentText:
		return st.text.stream(ch, eras.text)
	case LiveReasoning:
		return st.reasoning.stream(ch, eras.reasoning)
	}
	return nil
}

// commandOutput is output that continues what was sent, of the command
// item still running.
func (st *streamState) commandOutput(ch LiveChunk, era int) []Update {
	c := st.command
	if st.commandEra != era || c == nil || ch.CallID != c.CallID || ch.Skipped > 0 || len(ch.Data) == 0 ||
		ch.Offset != int64(len(st.commandSent)+len(st.commandCut)) {
		return nil
	}
	delta := whole(&st.commandCut, ch.Data)
	st.commandSent = append(st.commandSent, delta...)
	return []Update{{Kind: UpdateOutput, Item: c, Stream: ch.Stream, Text: delta, Data: ch.Data}}
}

// stream is streamed text, opening the step on its first. Text of a step
// whose item came is dropped, and so is text polled across an item when
// none was open; text that does not continue the step's waits for the
// item, which carries the rest.
func (s *modelStream) stream(ch LiveChunk, era int) []Update {
	if ch.Step <= s.closed || (s.era != era && s.open == nil) {
		return nil
	}
	var out []Update
	if s.open != nil && s.open.step != ch.Step {
		if ch.Step < s.open.step {
			return nil
		}
		out = append(out, *s.close()) // the earlier step's call left no item
	}
	if s.open == nil {
		if ch.Offset != 0 || ch.Skipped > 0 {
			return out // its start was missed: the item comes whole
		}
		s.open = &openStep{step: ch.Step}
		out = append(out, Update{Kind: UpdateOpened, Stream: s.kind, Step: ch.Step})
	}
	m := s.open
	if ch.Skipped > 0 || ch.Offset != int64(len(m.text)+len(m.cut)) {
		return out
	}
	delta := whole(&m.cut, ch.Data)
	if delta == "" {
		return out
	}
	m.text = append(m.text, delta...)
	return append(out, Update{Kind: UpdateDelta, Stream: s.kind, Step: m.step, Text: delta})
}

// String names the kind, for logs and test failures.
func (k UpdateKind) String() string {
	switch k {
	case UpdateEvent:
		return "event"
	case UpdateOutput:
		return "output"
	case UpdateOpened:
		return "opened"
	case UpdateDelta:
		return "delta"
	case UpdateClosed:
		return "closed"
	case UpdateEnd:
		return "end"
	}
	return fmt.Sprintf("UpdateKind(%d)", int(k))
}
