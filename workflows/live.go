package workflows

// Client side: front ends read the live output of a turn's running
// commands. Nothing here runs in a workflow.

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/activities"
)

// LiveChunk is output a running command wrote since the previous poll.
type LiveChunk struct {
	// CallID is the tool call the command runs for: the [Item.CallID] of
	// its command_execution item.
	CallID string
	// Stream is "stdout": commands write stdout and stderr into one stream,
	// the one the model reads, and the live output is that stream.
	Stream string
	// Offset is the position of Data's first byte in the command's output.
	Offset int64
	Data   []byte
	// Skipped counts bytes written before Data that this reader never saw:
	// it polled less often than the output outran the heartbeat's tail
	// ([activities.LiveTailBytes]).
	Skipped int64
}

// LiveOutput reads what a turn's running commands write, from the
// heartbeat details of the turn's pending activities
// ([activities.ExecProgress]), so it works from any process that can reach
// the Temporal server. A command's output reaches the server at most
// every worker.DefaultLiveThrottle (the tool worker's heartbeat throttle);
// poll about that often. Not safe for concurrent use.
type LiveOutput struct {
	c      client.Client
	turnID string
	seen   map[string]int64 // bytes returned so far, by activity id
}

// NewLiveOutput reads the live output of the turn with workflow id turnID.
func NewLiveOutput(c client.Client, turnID string) *LiveOutput {
	return &LiveOutput{c: c, turnID: turnID, seen: map[string]int64{}}
}

// execActivity is the registered name of [activities.Activities.Exec].
const execActivity = "Exec"

// Poll returns the output the turn's running commands wrote since the
// previous call, one chunk per command that wrote something.
func (l *LiveOutput) Poll(ctx context.Context) ([]LiveChunk, error) {
	d, err := l.c.DescribeWorkflowExecution(ctx, l.turnID, "")
	if err != nil {
		return nil, fmt.Errorf("reading live output of %s: %w", l.turnID, err)
	}
	var out []LiveChunk
	for _, pa := range d.GetPendingActivities() {
		if pa.GetActivityType().GetName() != execActivity || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var p activities.ExecProgress
		if converter.GetDefaultDataConverter().FromPayloads(pa.GetHeartbeatDetails(), &p) != nil || p.CallID == "" {
			continue // a heartbeat of an older build (a byte count)
		}
		key := pa.GetActivityId()
		if ch, ok := newOutput(p, l.seen[key]); ok {
			l.seen[key] = p.Total
			out = append(out, ch)
		}
	}
	return out, nil
}

// newOutput is what p holds past position seen.
func newOutput(p activities.ExecProgress, seen int64) (LiveChunk, bool) {
	if p.Total <= seen {
		return LiveChunk{}, false
	}
	ch := LiveChunk{CallID: callOfActivity(p.CallID), Stream: "stdout", Offset: seen}
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
