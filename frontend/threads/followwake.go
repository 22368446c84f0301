package threads

import (
	"context"

	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A follower's history long poll sees more than the turn's log: every
// workflow task, and the wakes a running command's worker sends when the
// command prints after a silence ([workflows.SignalLiveWake]). A [Stream]
// hears of each through its Follow's context, so that its live polling,
// which stops for a quiet turn whose commands wake it, starts again.

type historyMovedKey struct{}

// withHistoryMoved is ctx carrying fn, which [Follow] calls (on its own
// goroutine) for every workflow task completion and wake of the turn it
// follows, as they arrive.
func withHistoryMoved(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, historyMovedKey{}, fn)
}

// historyMoved is the function ctx carries for [withHistoryMoved]; a
// no-op when none.
func historyMoved(ctx context.Context) func() {
	if fn, ok := ctx.Value(historyMovedKey{}).(func()); ok {
		return fn
	}
	return func() {}
}

// isWake tells whether ev is a command's wake of the turn's followers.
func isWake(ev *historypb.HistoryEvent) bool {
	return ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == workflows.SignalLiveWake
}

// What a follower has seen of a run's history since it last read the log.
const (
	sinceNothing = iota // workflow task events at most
	sinceWakes          // wakes and their workflow tasks only: the log did not move
	sinceOther          // anything else (and before the first read)
)
