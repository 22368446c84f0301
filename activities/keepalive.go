package activities

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// keepAliveEvery is how often a running activity whose progress has not
// changed heartbeats: a quarter of its heartbeat timeout, so three beats
// may be late or lost before the server takes the worker for dead. The
// turn chooses the timeout: long for a shell command, whose quiet hours
// then cost a heartbeat every few minutes instead of every second (an
// interrupt does not wait for one: see [Activities.StopCommand]), short
// for a model call, whose worker's loss should cost little. The server
// cuts a heartbeat timeout to the activity's start-to-close timeout (an
// MCP call's is about a minute, a write_stdin's its wait and one more):
// a heartbeat timeout that outlasts what is left of the activity's time
// (asked as it begins to wait) finds nothing its deadline does not find
// first, so no keep-alive is needed at all (it is the whole timeout).
// Outside an activity, or without a timeout, it is
// [Activities.HeartbeatEvery].
func (a *Activities) keepAliveEvery(ctx context.Context) time.Duration {
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		if hb := info.HeartbeatTimeout; hb > 0 {
			if !info.Deadline.IsZero() && hb >= time.Until(info.Deadline) {
				return hb
			}
			return max(hb/4, 100*time.Millisecond)
		}
	}
	return a.heartbeatEvery()
}

// errStopped ends a command that [Activities.StopCommand] stopped.
var errStopped = errors.New("stopped: the turn was interrupted")

// running are the commands this worker process runs, by turn and call,
// each with the function that stops it.
type running struct {
	mu   sync.Mutex
	stop map[string]context.CancelCauseFunc
}

func (r *running) add(key string, stop context.CancelCauseFunc) (remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == nil {
		r.stop = map[string]context.CancelCauseFunc{}
	}
	r.stop[key] = stop
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.stop, key)
	}
}

func (r *running) stopOne(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	stop, ok := r.stop[key]
	if ok {
		stop(errStopped)
	}
	return ok
}

func runningKey(turnID, callID string) string { return turnID + "\x00" + callID }

// StopCommandInput names a running command: the turn's workflow id and
// the call id it runs under.
type StopCommandInput struct {
	TurnID string `json:"turn_id"`
	CallID string `json:"call_id"`
}

// StopCommandOutput tells whether this worker held the command, and
// when it did not, the queue of the worker process that runs it (empty:
// unknown), where the turn sends the stop again.
type StopCommandOutput struct {
	Stopped bool   `json:"stopped"`
	Queue   string `json:"queue,omitempty"`
}

// StopCommand ends a command of an interrupted turn at once, where a
// cancellation through Temporal would reach it only with its next
// heartbeat. It runs on the workspace host's queue, so with several
// workers on that host it may land on one that does not hold the command:
// that worker then finds which does (stopqueue.go) and says where to send
// the stop; the turn sends it to that process's own queue.
func (a *Activities) StopCommand(ctx context.Context, in StopCommandInput) (StopCommandOutput, error) {
	if a.commands.stopOne(runningKey(in.TurnID, in.CallID)) {
		return StopCommandOutput{Stopped: true}, nil
	}
	return StopCommandOutput{Queue: a.commandQueue(ctx, in)}, nil
}

// keepAlive paces the heartbeats of an activity that may wait quietly for
// a long time (an MCP call, a unified-exec call, a background terminal's
// watch), as [Activities.waitCommand] paces a command's: the first beat
// after [Activities.HeartbeatEvery], so a worker that dies soon still
// leaves one, then one every [Activities.keepAliveEvery], skipped when
// another beat (of output) went out within half of that.
type keepAlive struct {
	every time.Duration
	tick  *time.Ticker
	last  time.Time
}

func (a *Activities) newKeepAlive(ctx context.Context) *keepAlive {
	every := a.keepAliveEvery(ctx)
	return &keepAlive{every: every, tick: time.NewTicker(min(a.heartbeatEvery(), every))}
}

// C is the channel whose ticks ask [keepAlive.due].
func (k *keepAlive) C() <-chan time.Time { return k.tick.C }

// due is asked at a tick: whether to beat now (the beat is noted).
func (k *keepAlive) due() bool {
	k.tick.Reset(k.every)
	if time.Since(k.last) < k.every/2 {
		return false
	}
	k.beat()
	return true
}

// beat notes a heartbeat sent for another reason (output).
func (k *keepAlive) beat() { k.last = time.Now() }

func (k *keepAlive) stop() { k.tick.Stop() }

// stoppable is ctx, also ended when [Activities.StopCommand] names key
// under ctx's workflow (a turn's call, a thread's watch): a quiet call
// learns of Temporal's cancellation only with its next heartbeat,
// minutes away, so the workflow that stops it tells its worker directly.
// Outside an activity, or with no key, it is ctx.
func (a *Activities) stoppable(ctx context.Context, key string) (context.Context, func()) {
	if key == "" || !activity.IsActivity(ctx) {
		return ctx, func() {}
	}
	sctx, stop := context.WithCancelCause(ctx)
	remove := a.commands.add(runningKey(turnOf(ctx), key), stop)
	return sctx, func() {
		remove()
		stop(nil)
	}
}
