package appserver

import (
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Streamed reasoning, as streamed message text: the first summary text of
// a step opens a reasoning item of this server's own ("<turn>-rs-<step>")
// with item/started and item/reasoning/summaryPartAdded, the text goes
// out as item/reasoning/summaryTextDelta, and the workflow's reasoning
// item completes it under that id with the rest of the text as a last
// delta. One summary part per step: the parts of an answer are joined
// into one text, as the item holds them.

// reasoningText sends streamed reasoning (f.emitMu held).
func (f *follower) reasoningText(ch workflows.LiveChunk, era int) {
	l := &f.live
	if ch.Step <= l.thoughtClosed || (l.thoughtEra != era && l.thought == nil) {
		return
	}
	if l.thought != nil && l.thought.step != ch.Step {
		if ch.Step < l.thought.step {
			return
		}
		f.closeThought()
	}
	if l.thought == nil {
		if ch.Offset != 0 || ch.Skipped > 0 {
			return // its start was missed: the reasoning comes whole
		}
		l.thought = &liveMessage{id: fmt.Sprintf("%s-rs-%d", f.turnID, ch.Step), step: ch.Step}
		f.c.notify(f.tr.itemStarted(itemJSON(&workflows.Item{ID: l.thought.id, Type: workflows.ItemReasoning})))
		f.c.notify(f.tr.note("item/reasoning/summaryPartAdded", map[string]any{"itemId": l.thought.id, "summaryIndex": 0}))
	}
	m := l.thought
	if ch.Skipped > 0 || ch.Offset != int64(len(m.text)+len(m.cut)) {
		return
	}
	delta := whole(&m.cut, ch.Data)
	if delta == "" {
		return
	}
	m.text = append(m.text, delta...)
	f.c.notify(f.tr.note("item/reasoning/summaryTextDelta", map[string]any{"itemId": m.id, "delta": delta, "summaryIndex": 0}))
}

// closeThought completes the open reasoning item with what it streamed
// (f.emitMu held): its call ended without a reasoning item.
func (f *follower) closeThought() {
	l := &f.live
	if l.thought == nil {
		return
	}
	f.c.notify(f.tr.itemCompleted(itemJSON(&workflows.Item{ID: l.thought.id, Type: workflows.ItemReasoning, Text: string(l.thought.text)})))
	l.thought = nil
}

// reasoningDone maps the workflow's reasoning item onto the streamed one
// (f.emitMu held); ok is false when nothing streamed.
func (f *follower) reasoningDone(it *workflows.Item) ([]notification, bool) {
	l := &f.live
	l.thoughtEra++
	m := l.thought
	if m == nil {
		return nil, false
	}
	l.thought, l.thoughtClosed = nil, max(l.thoughtClosed, m.step)
	var out []notification
	if sent := string(m.text); strings.HasPrefix(it.Text, sent) && len(it.Text) > len(sent) {
		out = append(out, f.tr.note("item/reasoning/summaryTextDelta", map[string]any{"itemId": m.id, "delta": it.Text[len(sent):], "summaryIndex": 0}))
	}
	c := *it
	c.ID = m.id
	return append(out, f.tr.itemCompleted(itemJSON(&c))), true
}
