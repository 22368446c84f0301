package mcpserver

import (
	"context"
	"encoding/base64"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// LiveReader reads what a turn's running commands wrote and its running
// model call streamed since its previous poll; [threads.LiveOutput] is
// the one over Temporal.
type LiveReader = threads.LiveReader

// The streaming messages of a followed turn come from its stream
// ([threads.Stream]), in order with the log's: agent_message_delta and
// agent_reasoning_delta for the text its model calls stream,
// exec_command_output_delta for what its running command writes. Every
// delta comes between the messages it belongs between: a command's output
// after its exec_command_begin and before its exec_command_end, an agent
// message's text before its agent_message (whose own delta then carries
// only the rest of the text). Deltas are best effort: the begin/end
// messages carry everything.

// stream is the stream of the turn turnID, from its first event.
func (c *call) stream(turnID string) *threads.Stream {
	c.mu.Lock()
	known := c.known
	c.mu.Unlock()
	if known != nil && known.TurnID == turnID {
		return threads.StreamOf(threads.KnownSource(*known), 0, threads.StreamOptions{Begun: true})
	}
	b := c.h.s.backend
	src := threads.Source{
		// From the first event, once: a follow that fails ends the call.
		Follow: func(ctx context.Context, _ int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			return b.Follow(ctx, turnID, fn)
		},
		Outcome: func(ctx context.Context) (workflows.TurnResult, error) { return b.Outcome(ctx, turnID) },
		Live:    b.Live(turnID),
	}
	return threads.StreamOf(src, 0, threads.StreamOptions{Poll: c.h.s.opts.LivePoll, Begun: true,
		PollError: func(err error) { c.h.s.logger.Debug("reading live output", "turn", turnID, "error", err) }})
}

// liveMessage is the message of streamed output; false for updates
// that send none.
func liveMessage(u threads.Update) (msg, bool) {
	switch {
	case u.Kind == threads.UpdateOutput:
		return execCommandOutputDeltaEvent{CallID: u.Item.ID, Stream: u.Stream, Chunk: base64.StdEncoding.EncodeToString(u.Data)}, true
	case u.Kind == threads.UpdateDelta && u.Stream == threads.LiveReasoning:
		return agentReasoningDeltaEvent{Delta: u.Text}, true
	case u.Kind == threads.UpdateDelta:
		return agentMessageDeltaEvent{Delta: u.Text}, true
	}
	return nil, false
}

// restMessage is the delta that goes before a message's or reasoning's
// item: the text not streamed yet. When the stream does not match the
// item (a retried call), the item itself tells.
func restMessage(u threads.Update) (msg, bool) {
	it, st := u.Event.Item, u.Streamed
	if it == nil || u.Event.Type != workflows.EventItemCompleted {
		return nil, false
	}
	switch it.Type {
	case workflows.ItemAgentMessage:
		rest := it.Text
		if st != nil {
			rest = st.Rest
		}
		if rest != "" {
			return agentMessageDeltaEvent{Delta: rest}, true
		}
	case workflows.ItemReasoning:
		if st != nil && st.Text != "" && st.Rest != "" {
			return agentReasoningDeltaEvent{Delta: st.Rest}, true
		}
	}
	return nil, false
}
