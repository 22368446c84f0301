package activities

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Background terminals: a session still running when its turn ended.
// Its thread watches it with [Activities.WatchSession], on the queue of
// the worker process that holds it, and learns of its end once: the
// watch and a write_stdin call that sees the end both claim it, and only
// the first reports it.

// WatchSessionInput watches one session of a thread in this worker
// process.
type WatchSessionInput struct {
	ThreadID  string `json:"thread_id"`
	SessionID int    `json:"session_id"`
	// IdleUntil ends the session (its processes killed) when it is still
	// running then; zero: no bound.
	IdleUntil time.Time `json:"idle_until,omitempty"`
	// TailBytes bounds the last output reported (at most
	// [MaxSessionTailBytes]).
	TailBytes int `json:"tail_bytes,omitempty"`
}

// WatchSessionOutput says how the watch ended.
type WatchSessionOutput struct {
	SessionID int `json:"session_id"`
	// Exited: the process ended by itself, with ExitCode; Expired: the
	// idle bound ended it. Tail is its last output then, RanMs how long
	// it ran.
	Exited   bool   `json:"exited,omitempty"`
	Expired  bool   `json:"expired,omitempty"`
	ExitCode int    `json:"exit_code"`
	Tail     string `json:"tail,omitempty"`
	// Gone: the session is not here, or its end was reported by a call
	// (write_stdin), or it was closed: nothing to report.
	Gone bool `json:"gone,omitempty"`
}

// WatchSession waits until a session's process ends, heartbeating (a
// watch whose worker died times out: the thread then reports the session
// ended with that worker). It returns early, reporting nothing, when the
// session is closed or a call reports its end. It heartbeats rarely when
// the thread gives it a long heartbeat timeout ([Activities.keepAliveEvery]):
// a worker lost on this machine is found through its peers' lock files,
// and the thread stops a watch through [Activities.StopCommand] naming
// [WatchStopKey].
func (a *Activities) WatchSession(ctx context.Context, in WatchSessionInput) (*WatchSessionOutput, error) {
	ctx, unstop := a.stoppable(ctx, WatchStopKey(in.SessionID))
	defer unstop()
	gone := &WatchSessionOutput{SessionID: in.SessionID, Gone: true}
	s := a.execSessions().get(in.ThreadID, in.SessionID)
	if s == nil {
		return gone, nil
	}
	tailBytes := in.TailBytes
	if tailBytes <= 0 || tailBytes > MaxSessionTailBytes {
		tailBytes = MaxSessionTailBytes
	}
	var expire <-chan time.Time
	if !in.IdleUntil.IsZero() {
		t := time.NewTimer(time.Until(in.IdleUntil))
		defer t.Stop()
		expire = t.C
	}
	ka := a.newKeepAlive(ctx)
	defer ka.stop()
	expired := false
	for {
		select {
		case <-ctx.Done():
			return nil, stopped(ctx)
		case <-ka.C():
			if ka.due() {
				activity.RecordHeartbeat(ctx)
			}
			continue
		case <-expire:
			expired, expire = true, nil
			if claimed, _ := s.claimIdle(); claimed {
				a.execSessions().remove(s)
				s.kill()
				<-s.finished
				return &WatchSessionOutput{SessionID: s.id, Expired: true, ExitCode: s.exitCode, Tail: s.lastBytes(tailBytes)}, nil
			}
			continue
		case <-s.finished:
		case <-s.left:
			if !s.exited() {
				continue
			}
		}
		if s.wasClosed() {
			return gone, nil
		}
		claimed, busy := s.claimIdle()
		if busy {
			// A call waits on it and reports the end itself; it may not
			// (its turn stopped it first), so look again when it leaves.
			select {
			case <-s.left:
			case <-ctx.Done():
				return nil, stopped(ctx)
			}
			claimed, _ = s.claimIdle()
		}
		if !claimed {
			return gone, nil
		}
		a.execSessions().remove(s)
		return &WatchSessionOutput{SessionID: s.id, Exited: !expired, Expired: expired, ExitCode: s.exitCode, Tail: s.lastBytes(tailBytes)}, nil
	}
}

// WatchStopKey is the key under which a thread's [Activities.StopCommand]
// stops its watch of session id.
func WatchStopKey(id int) string { return "watch/" + strconv.Itoa(id) }

// stopped is the error of a watch ended by ctx: Temporal's cancellation,
// or the thread's stop, which is one too.
func stopped(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errStopped) {
		return temporal.NewCanceledError()
	}
	return ctx.Err()
}
