package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// runTools runs the calls of one answer and returns their outputs in the
// model's order. Consecutive calls that only read (file reads, listings,
// searches, pictures) run side by side: they change nothing and log no
// items, so their order matters to no one; so do foreground sub-agent
// runs (see [turn.sideBySide]); every other call runs alone, in the
// model's order.
func (t *turn) runTools(ctx workflow.Context, calls []activities.DecodedCall) []harness.Entry {
	out := make([]harness.Entry, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		if t.sideBySide(calls[i]) {
			for j < len(calls) && t.sideBySide(calls[j]) {
				j++
			}
		}
		if j-i == 1 {
			out[i] = t.runTool(ctx, calls[i])
			i++
			continue
		}
		left := j - i
		for k := i; k < j; k++ {
			workflow.Go(ctx, func(gctx workflow.Context) {
				out[k] = t.runTool(gctx, calls[k])
				left--
			})
		}
		// Wait for every one, even when the turn is being stopped: each
		// ends soon then (its activity is cancelled), and its output is
		// what the model reads next.
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		_ = workflow.Await(dctx, func() bool { return left == 0 })
		i = j
	}
	return out
}

// sideBySide tells whether a call may run beside its neighbours: one
// that only reads, or a foreground sub-agent run, whose agent works in a thread of its own; several Task
// calls in one answer run their agents at once, as Claude Code runs them.
func (t *turn) sideBySide(c activities.DecodedCall) bool {
	if readsOnly(c) {
		return true
	}
	if c.Inv.Error != "" || c.Inv.Tool != harness.ToolExternal {
		return false
	}
	x, ok := t.externalTool(c.Inv.External)
	return ok && x.Source == harness.SourceAgents && x.Tool == harness.AgentRun
}

// readsOnly tells whether a call only reads the workspace.
func readsOnly(c activities.DecodedCall) bool {
	if c.Inv.Error != "" {
		return false
	}
	switch c.Inv.Tool {
	case harness.ToolRead, harness.ToolList, harness.ToolGlob, harness.ToolGrep, harness.ToolViewImage:
		return true
	}
	return false
}
