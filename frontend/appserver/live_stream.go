package appserver

import (
	"fmt"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// streamItem is the id and type of this server's own item for a step's
// streamed text of kind stream (threads.LiveAgentText or LiveReasoning).
func (f *follower) streamItem(stream string, step int) (id, itemType string) {
	if stream == threads.LiveReasoning {
		return fmt.Sprintf("%s-rs-%d", f.turnID, step), workflows.ItemReasoning
	}
	return fmt.Sprintf("%s-msg-%d", f.turnID, step), workflows.ItemAgentMessage
}

// streamDelta is the notification of streamed text.
func (f *follower) streamDelta(stream, id, delta string) notification {
	if stream == threads.LiveReasoning {
		return notice(protocol.ReasoningSummaryTextDelta{ThreadID: f.threadID, TurnID: f.turnID, ItemID: id, Delta: delta, SummaryIndex: 0})
	}
	return notice(protocol.AgentMessageDelta(f.threadID, f.turnID, id, delta))
}

// eventNotes are the notifications of one logged event: the completion
// of an item that streamed carries only the rest of its text, under the
// id its deltas used.
func (f *follower) eventNotes(u threads.Update) []notification {
	e, st := u.Event, u.Streamed
	it := e.Item
	if it == nil || e.Type != workflows.EventItemCompleted {
		return f.tr.translate(e)
	}
	switch it.Type {
	case workflows.ItemCommandExecution:
		if st != nil {
			f.tr.sent = st.Text
		}
		out := f.tr.translate(e)
		f.tr.sent = ""
		return f.holdCompletion(it, out)
	case workflows.ItemAgentMessage, workflows.ItemReasoning:
		if st == nil {
			break
		}
		stream := threads.LiveAgentText
		if it.Type == workflows.ItemReasoning {
			stream = threads.LiveReasoning
		}
		id, _ := f.streamItem(stream, st.Step)
		var out []notification
		if st.Rest != "" {
			out = append(out, f.streamDelta(stream, id, st.Rest))
		}
		c := *it
		c.ID = id
		return append(out, f.tr.itemCompleted(itemJSON(&c)))
	}
	return f.tr.translate(e)
}
