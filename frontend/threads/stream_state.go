package threads

import (
	"fmt"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The state a [Stream] keeps to order its turn's updates: which command
// runs, which model steps stream, what already went out.

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
