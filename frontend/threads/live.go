package threads

// Client side: front ends read the live output of a turn's running
// commands. Nothing here runs in a workflow.

import (
	"context"
	"fmt"
	"strings"

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
	for _, pa := range d.GetPendingActivities() {
		if pa.GetHeartbeatDetails() == nil {
			continue
		}
		var p workflows.ExecProgress
		step := -1
		var thought *workflows.ExecProgress
		switch pa.GetActivityType().GetName() {
		// Unified-exec calls heartbeat as Exec does; a write_stdin's output
		// belongs to the exec_command call that started its session.
		case workflows.ActivityExec, workflows.ActivityExecCommand, workflows.ActivityWriteStdin:
			if dc.FromPayloads(pa.GetHeartbeatDetails(), &p) != nil || p.CallID == "" {
				continue // a heartbeat of an older build (a byte count)
			}
		case workflows.ActivityCallModel:
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

// LiveQuietPolls is how many empty polls in a row a [LivePace] makes at
// every tick before it backs off.
const LiveQuietPolls = 30

// LiveMaxGap is the most ticks a [LivePace] lets pass between polls of a
// quiet turn.
const LiveMaxGap = 100

// LivePace is how front ends pace their polls of a turn's live output: every
// tick while the turn shows news and for LiveQuietPolls ticks after (the
// first output of a command that talks comes as soon as it did before),
// then with gaps that double from 10 ticks to LiveMaxGap, and never while
// the turn waits for a client (nothing runs then). Every logged event
// re-arms it ([LivePace.Moved]): the follower already learns of those
// from its history long poll, for free. With the front ends' 100 ms tick
// a turn whose command prints nothing for minutes is asked about every
// 10 s, not every second; a quiet command that starts to talk is seen
// within that. The zero value is ready; it is not safe for concurrent
// use.
type LivePace struct {
	quiet, gap, wait int // polls without news, the current gap, ticks left of it
	ticks            int // ticks without news
}

// Due tells whether to poll at this tick; waiting: the turn waits for a
// client (or has not begun).
func (p *LivePace) Due(waiting bool) bool {
	if waiting {
		return false
	}
	p.ticks++
	if p.wait > 0 {
		p.wait--
		return false
	}
	return true
}

// Polled records what a poll brought.
func (p *LivePace) Polled(news bool) {
	if news {
		p.Moved()
		return
	}
	p.quiet++
	if p.quiet < LiveQuietPolls {
		return
	}
	p.gap = min(max(2*p.gap, 10), LiveMaxGap)
	p.wait = p.gap - 1
}

// Moved records that the turn's log moved: look closely again.
func (p *LivePace) Moved() { p.quiet, p.gap, p.wait, p.ticks = 0, 0, 0, 0 }

// Quiet is the number of ticks in a row without news.
func (p *LivePace) Quiet() int { return p.ticks }
