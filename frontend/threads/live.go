package threads

// Client side: front ends read the live output of a turn's running
// commands. Nothing here runs in a workflow.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Kinds of live output.
const (
	// LiveCommandOutput is what a running command wrote.
	LiveCommandOutput = "command_output"
	// LiveAgentText is the message text a running model call has streamed.
	LiveAgentText = "agent_text"
	// LiveReasoning is the reasoning summary a running model call has
	// streamed.
	LiveReasoning = "reasoning_text"
)

// LiveChunk is output a running command wrote, or message text a running
// model call streamed, since the previous poll.
type LiveChunk struct {
	Kind string
	// CallID is the tool call the command runs for: the [Item.CallID] of
	// its command_execution item (commands only).
	CallID string
	// Step is the turn's step of the model call (agent text only).
	Step int
	// Stream is "stdout": commands write stdout and stderr into one stream,
	// the one the model reads, and the live output is that stream.
	Stream string
	// Offset is the position of Data's first byte in the command's output.
	Offset int64
	Data   []byte
	// Skipped counts bytes written before Data that this reader never saw:
	// it polled less often than the output outran the heartbeat's tail
	// ([workflows.LiveTailBytes]).
	Skipped int64
}

// LiveOutput reads what a turn's running commands write and the text its
// running model call streams, from the heartbeat details of the turn's
// pending activities ([workflows.ExecProgress],
// [workflows.ModelProgress]), so it works from any process that can reach
// the Temporal server. Progress reaches the server at most every
// worker.DefaultLiveThrottle (the workers' heartbeat throttle); poll about
// that often. Model calls made as local activities show nothing. Not safe
// for concurrent use.
type LiveOutput struct {
	c      client.Client
	turnID string
	seen   map[string]int64 // bytes returned so far, by activity id and attempt
	// wakeAfter and wakes are what the last poll found ([LiveOutput.Wakes]).
	wakeAfter time.Duration
	wakes     bool
}

// NewLiveOutput reads the live output of the turn with workflow id turnID.
func NewLiveOutput(c client.Client, turnID string) *LiveOutput {
	return &LiveOutput{c: c, turnID: turnID, seen: map[string]int64{}}
}

// Poll returns the output the turn's running commands wrote since the
// previous call, one chunk per command that wrote something.
func (l *LiveOutput) Poll(ctx context.Context) ([]LiveChunk, error) {
	d, err := l.c.DescribeWorkflowExecution(ctx, l.turnID, "")
	if err != nil {
		return nil, fmt.Errorf("reading live output of %s: %w", l.turnID, err)
	}
	var out []LiveChunk
	dc := converter.GetDefaultDataConverter()
	l.wakes, l.wakeAfter = true, 0
	for _, pa := range d.GetPendingActivities() {
		kind := pa.GetActivityType().GetName()
		live := kind == workflows.ActivityExec || kind == workflows.ActivityExecCommand || kind == workflows.ActivityResumeExecCommand ||
			kind == workflows.ActivityWriteStdin || kind == workflows.ActivityCallModel
		if pa.GetHeartbeatDetails() == nil {
			// Not begun, or not heartbeated yet: it promised nothing.
			l.wakes = l.wakes && !live
			continue
		}
		var p workflows.ExecProgress
		step := -1
		var thought *workflows.ExecProgress
		switch kind {
		// Unified-exec calls heartbeat as Exec does; a write_stdin's output
		// belongs to the exec_command call that started its session.
		case workflows.ActivityExec, workflows.ActivityExecCommand, workflows.ActivityResumeExecCommand, workflows.ActivityWriteStdin:
			if dc.FromPayloads(pa.GetHeartbeatDetails(), &p) != nil || p.CallID == "" {
				l.wakes = false
				continue // a heartbeat of an older build (a byte count)
			}
			if p.WakeAfterMs <= 0 {
				l.wakes = false // an older build (or a local activity): it wakes no one
			}
			l.wakeAfter = max(l.wakeAfter, time.Duration(p.WakeAfterMs)*time.Millisecond)
		case workflows.ActivityCallModel:
			l.wakes = false // it streams: look closely
			var m workflows.ModelProgress
			if dc.FromPayloads(pa.GetHeartbeatDetails(), &m) != nil {
				continue // a heartbeat without details
			}
			p, step, thought = workflows.ExecProgress{Total: m.Total, Offset: m.Offset, Tail: m.Tail}, m.Step, m.Reasoning
		default:
			continue
		}
		// A retry starts its output again.
		key := fmt.Sprintf("%s#%d", pa.GetActivityId(), pa.GetAttempt())
		if thought != nil {
			if ch, ok := newOutput(*thought, l.seen[key+"#reasoning"]); ok {
				l.seen[key+"#reasoning"] = thought.Total
				ch.Kind, ch.Step, ch.Stream, ch.CallID = LiveReasoning, step, "", ""
				out = append(out, ch)
			}
		}
		ch, ok := newOutput(p, l.seen[key])
		if !ok {
			continue
		}
		l.seen[key] = p.Total
		if step >= 0 {
			ch.Kind, ch.Step, ch.Stream, ch.CallID = LiveAgentText, step, "", ""
		}
		out = append(out, ch)
	}
	return out, nil
}

// Wakes tells what the last [LiveOutput.Poll] found: ok when everything
// running that could show live output wakes the turn's followers (its
// history moves) should it print after a silence of after, the longest
// such silence ([workflows.ExecProgress].WakeAfterMs); after is 0 when
// nothing runs that could show any. A follower that has seen no news for
// twice after, and then polled once more, may stop polling until the
// turn's history moves.
func (l *LiveOutput) Wakes() (after time.Duration, ok bool) { return l.wakeAfter, l.wakes }

// newOutput is what p holds past position seen.
func newOutput(p workflows.ExecProgress, seen int64) (LiveChunk, bool) {
	if p.Total <= seen {
		return LiveChunk{}, false
	}
	ch := LiveChunk{Kind: LiveCommandOutput, CallID: callOfActivity(p.CallID), Stream: "stdout", Offset: seen}
	from := seen - p.Offset
	if from < 0 {
		ch.Skipped, ch.Offset, from = -from, p.Offset, 0
	}
	if from > int64(len(p.Tail)) {
		return LiveChunk{}, false
	}
	ch.Data = p.Tail[from:]
	return ch, true
}

// callOfActivity maps the call id an Exec activity ran under to its tool
// call: a rerun without the sandbox runs under "<call>-unsandboxed" (see
// turn.runShell) and belongs to the same item.
func callOfActivity(id string) string {
	return strings.TrimSuffix(id, "-unsandboxed")
}
