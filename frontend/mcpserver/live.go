package mcpserver

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// LiveReader reads what a turn's running commands wrote since its previous
// poll; [workflows.LiveOutput] is the one over Temporal.
type LiveReader interface {
	Poll(ctx context.Context) ([]workflows.LiveChunk, error)
}

// livePoller sends exec_command_output_delta messages for the command item
// that is running, polling the turn's live output only while there is one.
// Deltas are best effort: what a command writes after its last heartbeat
// comes in exec_command_end, which always carries the whole output.
type livePoller struct {
	c      *call
	turnID string
	reader LiveReader // made on the first command, kept for the turn

	cancel context.CancelFunc
	done   chan struct{}
}

// start polls for the output of it (a command item that began running).
func (l *livePoller) start(ctx context.Context, it *workflows.Item) {
	l.stop()
	if it.CallID == "" {
		return
	}
	if l.reader == nil {
		if l.reader = l.c.h.s.backend.Live(l.turnID); l.reader == nil {
			return
		}
	}
	pctx, cancel := context.WithCancel(ctx)
	l.cancel, l.done = cancel, make(chan struct{})
	go l.run(ctx, pctx, it.ID, it.CallID, l.done)
}

func (l *livePoller) run(ctx, pctx context.Context, itemID, callID string, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(l.c.h.s.opts.LivePoll)
	defer t.Stop()
	for {
		select {
		case <-pctx.Done():
			return
		case <-t.C:
		}
		chunks, err := l.reader.Poll(pctx)
		if err != nil {
			if pctx.Err() == nil {
				l.c.h.s.logger.Debug("reading live output", "turn", l.turnID, "error", err)
			}
			continue
		}
		for _, ch := range chunks {
			if ch.CallID != callID || len(ch.Data) == 0 || pctx.Err() != nil {
				continue
			}
			l.c.emit(ctx, l.turnID, msg{"type": "exec_command_output_delta", "call_id": itemID,
				"stream": ch.Stream, "chunk": base64.StdEncoding.EncodeToString(ch.Data)})
		}
	}
}

// stop ends the polling and waits for it, so that no delta follows the
// messages sent after it.
func (l *livePoller) stop() {
	if l.cancel == nil {
		return
	}
	l.cancel()
	<-l.done
	l.cancel, l.done = nil, nil
}
