package appserver

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// LiveReader reads what a turn's running commands wrote and its running
// model call streamed since its previous poll; [threads.LiveOutput] is
// the one over Temporal.
type LiveReader interface {
	Poll(ctx context.Context) ([]threads.LiveChunk, error)
}

// live is the streaming state of a followed turn: what its running command
// wrote and what its model call streamed, sent as
// item/commandExecution/outputDelta and item/agentMessage/delta while they
// happen. The follower holds it and sends the log's notifications and the
// deltas under one lock (follower.emitMu), so a delta never comes after its
// item's item/completed; the item's completion then carries only the text
// not streamed yet, so an item's deltas add up to its final text.
//
// Streamed model text has no item yet: the workflow logs the agent
// message as one completed item once the model call returns. So the first
// streamed text of a step opens an agentMessage item of this server's own
// ("<turn>-msg-<step>"): item/started, then the deltas, and the message's
// item/completed goes out under that id (with the rest of the text as a
// last delta). thread/read and thread/resume, built from the log, show the
// message under the workflow's id. A step whose streamed text never
// becomes a message (its call failed) has its item completed with the
// text streamed, at the latest when the turn ends.
type live struct {
	// command is the running command item; sent is its output sent so far
	// and cut the start of a character a poll cut.
	command     *workflows.Item
	commandSent []byte
	commandCut  []byte
	commandEra  int

	// text and reasoning are what the model call streams (see
	// live_stream.go); nil until the follower starts.
	text, reasoning *modelStream

	// waiting are the approvals the turn waits for: nothing runs then,
	// so nothing is polled. pace slows polling down while nothing happens.
	waiting map[string]bool
	pace    threads.LivePace
}

type liveMessage struct {
	id   string
	step int
	text []byte
	cut  []byte
}

// startLive polls the turn's live output until the returned stop is
// called; nothing when the backend has no live view of the turn.
func (f *follower) startLive(ctx context.Context) (stop func()) {
	text, reasoning := f.newStreams()
	f.live.text, f.live.reasoning = &text, &reasoning
	reader := f.c.s.backend.Live(f.turnID)
	if reader == nil {
		return func() {}
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.poll(pctx, reader)
	}()
	return func() { cancel(); <-done }
}

func (f *follower) poll(ctx context.Context, reader LiveReader) {
	t := time.NewTicker(f.c.s.opts.LivePoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f.emitMu.Lock()
		l := &f.live
		cmdEra, textEra, reasoningEra := l.commandEra, l.text.era, l.reasoning.era
		// Nothing before the turn's beginning went out; nothing while the
		// turn waits for a client.
		skip := !l.pace.Due(!f.begun || len(l.waiting) > 0)
		f.emitMu.Unlock()
		if skip {
			continue
		}
		chunks, err := reader.Poll(ctx)
		if err != nil {
			if ctx.Err() == nil {
				f.c.logf("reading the live output of %s: %v", f.turnID, err)
			}
			continue
		}
		f.emitMu.Lock()
		l.pace.Polled(len(chunks) > 0)
		for _, ch := range chunks {
			if ctx.Err() != nil {
				break
			}
			switch ch.Kind {
			case threads.LiveCommandOutput:
				f.commandOutput(ch, cmdEra)
			case threads.LiveAgentText:
				f.streamText(l.text, ch, textEra)
			case threads.LiveReasoning:
				f.streamText(l.reasoning, ch, reasoningEra)
			}
		}
		f.emitMu.Unlock()
	}
}

// commandOutput sends a running command's output (f.emitMu held): only output
// that continues what was sent, of the command item still running.
func (f *follower) commandOutput(ch threads.LiveChunk, era int) {
	l := &f.live
	c := l.command
	if l.commandEra != era || c == nil || ch.CallID != c.CallID || ch.Skipped > 0 ||
		ch.Offset != int64(len(l.commandSent)+len(l.commandCut)) {
		return
	}
	delta := whole(&l.commandCut, ch.Data)
	if delta == "" {
		return
	}
	l.commandSent = append(l.commandSent, delta...)
	f.c.notify(f.tr.note("item/commandExecution/outputDelta", map[string]any{"itemId": c.ID, "delta": delta}))
}

// liveEvent notes what one logged event opens or closes (f.emitMu held) and
// returns its notifications: the completion of an item that streamed
// carries only the rest of its text, under the id its deltas used.
func (f *follower) liveEvent(e workflows.Event) []notification {
	l := &f.live
	l.pace.Moved()
	if a := e.Approval; a != nil {
		switch e.Type {
		case workflows.EventApprovalRequested:
			if l.waiting == nil {
				l.waiting = map[string]bool{}
			}
			l.waiting[a.ItemID] = true
		case workflows.EventApprovalResolved:
			delete(l.waiting, a.ItemID)
		}
	}
	it := e.Item
	if it == nil {
		return f.tr.translate(e)
	}
	switch {
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemStarted:
		c := *it
		l.command, l.commandSent, l.commandCut = &c, nil, nil
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventTerminalInteraction:
		// A write_stdin into a session: what the session prints while it
		// waits streams under the exec_command's item, as in Codex, from
		// the start of this call's output.
		c := *it
		l.command, l.commandSent, l.commandCut = &c, nil, nil
		l.commandEra++
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemCompleted:
		sent := ""
		if l.command != nil && l.command.ID == it.ID {
			sent = string(l.commandSent)
			l.command, l.commandSent, l.commandCut = nil, nil, nil
		}
		l.commandEra++
		f.tr.sent = sent
		out := f.tr.translate(e)
		f.tr.sent = ""
		return out
	case it.Type == workflows.ItemReasoning && e.Type == workflows.EventItemCompleted:
		if out, ok := f.streamDone(l.reasoning, it); ok {
			return out
		}
	case it.Type == workflows.ItemAgentMessage && e.Type == workflows.EventItemCompleted:
		if out, ok := f.streamDone(l.text, it); ok {
			return out
		}
	}
	return f.tr.translate(e)
}

// whole appends b to the start of a character a previous chunk cut and
// returns the complete characters, keeping the cut one's start in cut.
func whole(cut *[]byte, b []byte) string {
	all := append(*cut, b...)
	n := completeUTF8(all)
	*cut = append([]byte(nil), all[n:]...)
	return string(all[:n])
}

// completeUTF8 is the length of b's longest prefix that does not end in
// the middle of a character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
