package mcpserver

import (
	"context"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// thinking is the reasoning a running model call has streamed, sent as
// agent_reasoning_delta events before the step's agent_reasoning.
type thinking struct {
	streamed, pending []byte
	step, closedStep  int
	epoch             int
}

// reasoningText sends streamed reasoning (lock held), as agentText sends
// text: only the open step's, and never after its agent_reasoning.
func (l *livePoller) reasoningText(ctx context.Context, ch threads.LiveChunk, epoch int) {
	th := &l.thinking
	if ch.Step <= th.closedStep || (th.epoch != epoch && th.step == 0) {
		return
	}
	if th.step != 0 && ch.Step != th.step {
		return
	}
	th.step = ch.Step
	b := append(th.pending, ch.Data...)
	n := completeUTF8(b)
	th.pending = append([]byte(nil), b[n:]...)
	if n == 0 {
		return
	}
	th.streamed = append(th.streamed, b[:n]...)
	l.c.emit(ctx, l.turnID, msg{"type": "agent_reasoning_delta", "delta": string(b[:n])})
}

// reasoningDone sends the rest of a reasoning item not streamed yet and
// closes its step (lock held).
func (l *livePoller) reasoningDone(ctx context.Context, it *workflows.Item) {
	th := &l.thinking
	if sent := string(th.streamed); sent != "" && strings.HasPrefix(it.Text, sent) && len(it.Text) > len(sent) {
		l.c.emit(ctx, l.turnID, msg{"type": "agent_reasoning_delta", "delta": it.Text[len(sent):]})
	}
	th.closedStep = max(th.closedStep, th.step)
	th.streamed, th.pending, th.step = nil, nil, 0
	th.epoch++
}
