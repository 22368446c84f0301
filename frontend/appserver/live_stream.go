package appserver

import (
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// modelStream is one kind of output a model call streams before the
// workflow logs its item: message text (agentMessage, item/agentMessage/
// delta) or reasoning (reasoning, item/reasoning/summaryTextDelta). The
// first streamed text of a step opens an item of this server's own
// ("<turn>-<tag>-<step>"); the workflow's item completes it under that id,
// with the text not streamed yet as a last delta.
type modelStream struct {
	itemType string
	tag      string
	// opened are notifications that follow the item's item/started.
	opened func(id string) []notification
	delta  func(id, delta string) notification

	open *liveMessage
	// era counts the workflow's items of this kind; closed is the last
	// step whose item came.
	era, closed int
}

// streamText sends streamed text (f.emitMu held), opening the step's item
// on its first text. Text of a step whose item came is dropped, and so is
// text polled across an item when none was open; text that does not
// continue the item's (a retried call starting over, output the poller
// missed) waits for the item's completion, which carries the rest.
func (f *follower) streamText(s *modelStream, ch threads.LiveChunk, era int) {
	if ch.Step <= s.closed || (s.era != era && s.open == nil) {
		return
	}
	if s.open != nil && s.open.step != ch.Step {
		if ch.Step < s.open.step {
			return
		}
		f.closeStream(s) // the earlier step's call left no item
	}
	if s.open == nil {
		if ch.Offset != 0 || ch.Skipped > 0 {
			return // its start was missed: the item comes whole
		}
		s.open = &liveMessage{id: fmt.Sprintf("%s-%s-%d", f.turnID, s.tag, ch.Step), step: ch.Step}
		f.c.notify(f.tr.itemStarted(itemJSON(&workflows.Item{ID: s.open.id, Type: s.itemType})))
		for _, n := range s.opened(s.open.id) {
			f.c.notify(n)
		}
	}
	m := s.open
	if ch.Skipped > 0 || ch.Offset != int64(len(m.text)+len(m.cut)) {
		return
	}
	delta := whole(&m.cut, ch.Data)
	if delta == "" {
		return
	}
	m.text = append(m.text, delta...)
	f.c.notify(s.delta(m.id, delta))
}

// closeStream completes the open item with the text it streamed
// (f.emitMu held): its call ended without an item of this kind.
func (f *follower) closeStream(s *modelStream) {
	if s == nil || s.open == nil {
		return
	}
	f.c.notify(f.tr.itemCompleted(itemJSON(&workflows.Item{ID: s.open.id, Type: s.itemType, Text: string(s.open.text)})))
	s.open = nil
}

// streamDone maps the workflow's item onto the streamed one (f.emitMu
// held); ok is false when nothing streamed.
func (f *follower) streamDone(s *modelStream, it *workflows.Item) ([]notification, bool) {
	if s == nil {
		return nil, false
	}
	s.era++
	m := s.open
	if m == nil {
		return nil, false
	}
	s.open, s.closed = nil, max(s.closed, m.step)
	var out []notification
	if sent := string(m.text); strings.HasPrefix(it.Text, sent) && len(it.Text) > len(sent) {
		out = append(out, s.delta(m.id, it.Text[len(sent):]))
	}
	c := *it
	c.ID = m.id
	return append(out, f.tr.itemCompleted(itemJSON(&c))), true
}

// newStreams are the two streams of a follower.
func (f *follower) newStreams() (text, reasoning modelStream) {
	text = modelStream{itemType: workflows.ItemAgentMessage, tag: "msg",
		opened: func(string) []notification { return nil },
		delta: func(id, d string) notification {
			return f.tr.note("item/agentMessage/delta", map[string]any{"itemId": id, "delta": d})
		}}
	// One summary part per step: an answer's parts are joined into one
	// text, as the item holds them.
	reasoning = modelStream{itemType: workflows.ItemReasoning, tag: "rs",
		opened: func(id string) []notification {
			return []notification{f.tr.note("item/reasoning/summaryPartAdded", map[string]any{"itemId": id, "summaryIndex": 0})}
		},
		delta: func(id, d string) notification {
			return f.tr.note("item/reasoning/summaryTextDelta", map[string]any{"itemId": id, "delta": d, "summaryIndex": 0})
		}}
	return text, reasoning
}
