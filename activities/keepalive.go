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
// for a model call, whose worker's loss should cost little. Outside an
// activity, or without a timeout, it is [Activities.HeartbeatEvery].
func (a *Activities) keepAliveEvery(ctx context.Context) time.Duration {
	if activity.IsActivity(ctx) {
		if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
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
