package mcpserver

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
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

// livePoller sends the streaming messages of a followed turn:
// agent_message_delta for the text its model calls stream and
// exec_command_output_delta for what its running command writes. It polls
// the turn's live output while the turn is followed.
//
// The follow callback ([livePoller.handle]) and the poller send under one
// lock, so every delta comes between the messages it belongs between: a
// command's output after its exec_command_begin and before its
// exec_command_end, an agent message's text before its agent_message
// (whose own delta then carries only the rest of the text). Deltas are best
// effort: the begin/end messages carry everything.
type livePoller struct {
	c      *call
	turnID string
	reader LiveReader

	mu sync.Mutex
	// command is the command item in progress; commandEpoch counts command
	// completions, so output polled across one is dropped.
	command      *workflows.Item
	commandEpoch int
	// streamed is the agent text sent since the last agent_message, from
	// step textStep (0: none yet); pending holds the start of a character
	// a poll cut. closedStep is the last step whose text an agent_message
	// carried; textEpoch counts agent messages.
	streamed   []byte
	pending    []byte
	textStep   int
	closedStep int
	textEpoch  int
	thinking   thinking
	// waiting are the approvals the turn waits for: nothing runs then, so
	// nothing is polled. pace slows polling down while nothing happens.
	waiting map[string]bool
	pace    threads.LivePace

	cancel context.CancelFunc
	done   chan struct{}
}

// start polls until stop; without a reader there is nothing to poll.
func (l *livePoller) start(ctx context.Context) {
	if l.reader = l.c.h.s.backend.Live(l.turnID); l.reader == nil {
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	l.cancel, l.done = cancel, make(chan struct{})
	go l.run(ctx, pctx)
}

// stop ends the polling and waits for it.
func (l *livePoller) stop() {
	if l.cancel == nil {
		return
	}
	l.cancel()
	<-l.done
	l.cancel = nil
}

func (l *livePoller) run(ctx, pctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.c.h.s.opts.LivePoll)
	defer t.Stop()
	for {
		select {
		case <-pctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		cmdEpoch, textEpoch, thinkEpoch := l.commandEpoch, l.textEpoch, l.thinking.epoch
		// A turn that shows nothing for a while (a long model call that
		// does not stream, a slow quiet command) is polled every tenth tick.
		skip := !l.pace.Due(len(l.waiting) > 0)
		l.mu.Unlock()
		if skip {
			continue
		}
		chunks, err := l.reader.Poll(pctx)
		if err != nil {
			if pctx.Err() == nil {
				l.c.h.s.logger.Debug("reading live output", "turn", l.turnID, "error", err)
			}
			continue
		}
		l.mu.Lock()
		l.pace.Polled(len(chunks) > 0)
		for _, ch := range chunks {
			if pctx.Err() != nil {
				break
			}
			switch ch.Kind {
			case threads.LiveCommandOutput:
				if l.commandEpoch == cmdEpoch && l.command != nil && ch.CallID == l.command.CallID && len(ch.Data) > 0 {
					l.c.emit(ctx, l.turnID, msg{"type": "exec_command_output_delta", "call_id": l.command.ID,
						"stream": ch.Stream, "chunk": base64.StdEncoding.EncodeToString(ch.Data)})
				}
			case threads.LiveAgentText:
				l.agentText(ctx, ch, textEpoch)
			case threads.LiveReasoning:
				l.reasoningText(ctx, ch, thinkEpoch)
			}
		}
		l.mu.Unlock()
	}
}

// agentText sends streamed text as agent_message_delta (lock held). Text
// of a step an agent_message already carried is dropped, and so is text
// polled across an agent_message that came before any text of its step.
func (l *livePoller) agentText(ctx context.Context, ch threads.LiveChunk, epoch int) {
	if ch.Step <= l.closedStep || (l.textEpoch != epoch && l.textStep == 0) {
		return
	}
	if l.textStep != 0 && ch.Step != l.textStep {
		return // another step's text before this one's message: not ours to show
	}
	l.textStep = ch.Step
	b := append(l.pending, ch.Data...)
	n := completeUTF8(b)
	l.pending = append([]byte(nil), b[n:]...)
	if n == 0 {
		return
	}
	l.streamed = append(l.streamed, b[:n]...)
	l.c.emit(ctx, l.turnID, msg{"type": "agent_message_delta", "delta": string(b[:n])})
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

// handle sends the messages of one event of the log (in order with the
// deltas) and notes what it opens or closes.
func (l *livePoller) handle(ctx context.Context, e workflows.Event, msgs []msg) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	if it := e.Item; it != nil {
		switch {
		case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemStarted:
			c := *it
			l.command = &c
		case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventTerminalInteraction:
			// A write_stdin into a session: what the session prints while it
			// waits is its command's output again (the exec_command's item).
			c := *it
			l.command = &c
			l.commandEpoch++
		case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemCompleted:
			l.command = nil
			l.commandEpoch++
		case it.Type == workflows.ItemReasoning && e.Type == workflows.EventItemCompleted:
			l.reasoningDone(ctx, it)
		case it.Type == workflows.ItemAgentMessage && e.Type == workflows.EventItemCompleted:
			// The text not streamed yet, as the message's last delta; when
			// the stream does not match the message (a retried call), the
			// message itself tells.
			if sent := string(l.streamed); strings.HasPrefix(it.Text, sent) && len(it.Text) > len(sent) {
				l.c.emit(ctx, l.turnID, msg{"type": "agent_message_delta", "delta": it.Text[len(sent):]})
			}
			l.closedStep = max(l.closedStep, l.textStep)
			l.streamed, l.pending, l.textStep = nil, nil, 0
			l.textEpoch++
		}
	}
	for _, x := range msgs {
		l.c.emit(ctx, l.turnID, x)
	}
}
