package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// A follower of a turn learns of its events from the turn's history,
// which it long-polls for free, but of a running command's output only by
// asking the server (the output travels in heartbeat details, which wake
// no one). So that a follower need not ask every few seconds about a
// command that prints nothing for minutes, the command's worker makes
// the turn's history move when the command prints after a silence: it
// sends the turn [LiveWakeSignal], which the turn takes and ignores. A
// follower that has seen the command quiet for twice [ExecProgress]'s
// WakeAfterMs then stops asking until the history moves.

// LiveWakeSignal is the signal a shell command's worker sends its turn
// when the command prints after a silence of its progress's WakeAfterMs.
const LiveWakeSignal = "live.wake"

// The silence after which a command's output wakes its turn's followers
// starts at wakeFirst and doubles with each wake, up to wakeMax: each
// wake adds four events to the turn's history (the signal and a workflow
// task), so a command that prints every few seconds for hours adds a few
// hundred a day, not thousands.
const (
	wakeFirst = 5 * time.Second
	wakeMax   = 5 * time.Minute
	// wakeTimeout bounds a wake's signal. It is sent before the command's
	// next heartbeat and before its result, so that the signal never lands
	// in the workflow task that handles the result.
	wakeTimeout = 2 * time.Second
)

// waker wakes the followers of one command's turn.
type waker struct {
	send  func(context.Context) error // nil: this command wakes no one
	after time.Duration               // the silence that makes a wake
	last  time.Time                   // when the output last grew (or the command began)
}

// newWaker is the waker of the command started at start by ctx's
// activity: only a turn's Exec, ExecCommand and WriteStdin (regular, not
// local) activities wake its followers, and only when the worker gave a
// way to ([Activities.Wake]).
func (a *Activities) newWaker(ctx context.Context, start time.Time) *waker {
	w := &waker{last: start}
	if a.Wake == nil || !activity.IsActivity(ctx) {
		return w
	}
	info := activity.GetInfo(ctx)
	if info.IsLocalActivity || !wakingActivities[info.ActivityType.Name] {
		return w
	}
	id, run := info.WorkflowExecution.ID, info.WorkflowExecution.RunID
	w.after = wakeFirst
	w.send = func(ctx context.Context) error { return a.Wake(ctx, id, run) }
	return w
}

// wakingActivities are the registered names (the worker registers them by
// method value) of the activities whose output wakes followers:
// [Activities.Exec], [Activities.ExecCommand] (and its hand-off,
// [Activities.ResumeExecCommand]), [Activities.WriteStdin].
var wakingActivities = map[string]bool{"Exec": true, "ExecCommand": true, "ResumeExecCommand": true, "WriteStdin": true}

// grew notes that the output grew, seen at now: after a silence of
// w.after it first wakes the followers and doubles the silence the next
// wake needs.
func (w *waker) grew(ctx context.Context, now time.Time) {
	quiet := now.Sub(w.last)
	w.last = now
	if w.send == nil || quiet < w.after {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, wakeTimeout)
	defer cancel()
	if err := w.send(sctx); err != nil {
		// Followers still look again on their own, rarely.
		activity.GetLogger(ctx).Debug("waking the turn's followers", "error", err)
	}
	w.after = min(2*w.after, wakeMax)
}

// afterMs is what a heartbeat tells followers: 0 when this command wakes
// no one.
func (w *waker) afterMs() int64 { return w.after.Milliseconds() }
