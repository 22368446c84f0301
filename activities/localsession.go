package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"
)

// LocalExecCommandInput is an exec_command a turn runs as a local
// activity, in its own workflow task, when that task's worker serves the
// workspace host (as [LocalExecInput] is for a shell command).
type LocalExecCommandInput struct {
	Session   ExecCommandInput `json:"session"`
	HostQueue string           `json:"host_queue"`
	// Key names the call in the host-local record of started commands.
	Key string `json:"key"`
	// Budget is how long the call may wait inside the workflow task; a
	// session still running then, whose yield is longer, is handed off.
	Budget time.Duration `json:"budget"`
	// Forget are keys of the turn's earlier commands whose outcome is in
	// history.
	Forget []string `json:"forget,omitempty"`
}

// LocalExecCommandOutput is what became of a [LocalExecCommandInput].
type LocalExecCommandOutput struct {
	// Elsewhere: this worker does not serve the host; nothing ran.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// StartedBefore: an earlier attempt started the command; it is not
	// run again, and counts as interrupted.
	StartedBefore bool `json:"started_before,omitempty"`
	// HandoffQueue is set when the session still ran after the budget
	// and before its yield: [Activities.ResumeExecCommand] on that queue
	// (only this worker process polls it) waits out the rest.
	HandoffQueue string `json:"handoff_queue,omitempty"`
	// Output is the call's answer when it is over.
	Output *SessionOutput `json:"output,omitempty"`
	// Canceled: the command was stopped while the call waited.
	Canceled bool `json:"canceled,omitempty"`
	// ElapsedMs is how long the local activity took.
	ElapsedMs int64 `json:"elapsed_ms,omitempty"`
}

// ResumeExecCommandInput waits out the yield of an exec_command that
// [Activities.ExecCommandHere] handed off.
type ResumeExecCommandInput struct {
	ThreadID  string `json:"thread_id"`
	CallID    string `json:"call_id"`
	SessionID int    `json:"session_id"`
	// YieldMs is what is left of the call's yield; ElapsedMs what the
	// local part waited already (the call's wall time counts both).
	YieldMs   int64 `json:"yield_ms"`
	ElapsedMs int64 `json:"elapsed_ms"`
	MaxTokens int   `json:"max_tokens"`
}

// ExecCommandHere starts an exec_command session as a local activity
// ([LocalExecCommandInput]). The record of the started command is written
// before its process starts, so a repeated attempt reports it interrupted
// instead of starting it again. A session still running after the
// budget stays in this process, waited for by the call's hand-off.
func (a *Activities) ExecCommandHere(ctx context.Context, in LocalExecCommandInput) (*LocalExecCommandOutput, error) {
	if in.HostQueue == "" || in.HostQueue != a.HostQueue {
		return &LocalExecCommandOutput{Elsewhere: true}, nil
	}
	begin := time.Now()
	out, err := a.execCommandHere(ctx, in, begin)
	if out != nil {
		out.ElapsedMs = time.Since(begin).Milliseconds()
	}
	return out, err
}

func (a *Activities) execCommandHere(ctx context.Context, in LocalExecCommandInput, start time.Time) (*LocalExecCommandOutput, error) {
	rec := a.started()
	turn := turnOf(ctx)
	rec.forget(turn, in.Forget)
	fresh, err := rec.record(turn, in.Key)
	if err != nil {
		return nil, err
	}
	sess := in.Session
	if !fresh {
		// An earlier attempt's session that still runs here is ended.
		for _, s := range a.execSessions().take(sess.Exec.ThreadID, []int{sess.SessionID}) {
			s.markClosed()
			s.kill()
			// Reported interrupted: its processes are gone first.
			select {
			case <-s.finished:
			case <-time.After(sessionEndWait):
			}
		}
		return &LocalExecCommandOutput{StartedBefore: true}, nil
	}
	if len(sess.Exec.Command) == 0 {
		return &LocalExecCommandOutput{Output: &SessionOutput{SessionID: sess.SessionID, ExitCode: -1,
			StartError: "empty command", Output: "empty command", ChunkID: chunkID()}}, nil
	}
	s, failed := a.startSession(ctx, sess)
	if failed != nil {
		failed.ChunkID = chunkID()
		return &LocalExecCommandOutput{Output: failed}, nil
	}
	s.enter()
	if err := a.execSessions().put(s); err != nil {
		s.kill()
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "SessionExists", nil)
	}
	yield := time.Duration(sess.YieldMs) * time.Millisecond
	wait := time.NewTimer(min(in.Budget, yield))
	defer wait.Stop()
	select {
	case <-s.finished:
	case <-ctx.Done():
	case <-wait.C:
		if in.Budget < yield {
			a.handOffSession(s)
			return &LocalExecCommandOutput{HandoffQueue: a.SessionQueue}, nil
		}
	}
	out := a.collect(ctx, s, sess.Exec.CallID, 0, sess.MaxTokens, start)
	s.leave(!out.Running)
	return &LocalExecCommandOutput{Output: out, Canceled: a.settleCall(ctx, s, out)}, nil
}

// sessionEndWait bounds how long a repeated attempt waits for the
// session it ended to be gone before it reports the call interrupted.
const sessionEndWait = 5 * time.Second

// States of a session's hand-off ([execSession.handoff]).
const (
	handoffNone int32 = iota
	handoffWaiting
	handoffTaken
)

// handOffSession leaves s waiting for its hand-off; one not taken over
// in [commandUnclaimed] (the workflow task that held it failed, and its
// retry reported the call interrupted) is ended.
func (a *Activities) handOffSession(s *execSession) {
	s.handoff.Store(handoffWaiting)
	time.AfterFunc(commandUnclaimed, func() {
		if s.handoff.CompareAndSwap(handoffWaiting, handoffTaken) {
			a.endSession(s)
			s.leave(true)
		}
	})
}

// ResumeExecCommand waits out an exec_command that
// [Activities.ExecCommandHere] handed off, as [Activities.ExecCommand]
// would have: its output since the start, heartbeated; the process ended
// when the turn is interrupted.
func (a *Activities) ResumeExecCommand(ctx context.Context, in ResumeExecCommandInput) (*SessionOutput, error) {
	ctx, unstop := a.stoppable(ctx, in.CallID)
	defer unstop()
	s := a.execSessions().get(in.ThreadID, in.SessionID)
	if s == nil || !s.handoff.CompareAndSwap(handoffWaiting, handoffTaken) {
		return nil, temporal.NewNonRetryableApplicationError("the session's worker no longer holds it", ErrTypeCommandLost, nil)
	}
	start := time.Now().Add(-time.Duration(in.ElapsedMs) * time.Millisecond)
	s.seedNextWatch()
	out := a.collect(ctx, s, in.CallID, in.YieldMs, in.MaxTokens, start)
	defer func() { s.leave(!out.Running) }()
	if a.settleCall(ctx, s, out) {
		return out, temporal.NewCanceledError(*out)
	}
	return out, nil
}

// settleCall finishes an exec_command's answer: the login shell's
// snapshot warning, if any, and, when the call was stopped, the end of
// its session (the model never learned its id). It tells whether the
// call was stopped.
func (a *Activities) settleCall(ctx context.Context, s *execSession, out *SessionOutput) bool {
	if s.snapshotWarning != "" {
		out.Output += "\n[" + s.snapshotWarning + "]"
	}
	if ctx.Err() == nil {
		return false
	}
	a.endSession(s)
	return true
}

// endSession removes s from this process's sessions and ends its
// processes.
func (a *Activities) endSession(s *execSession) {
	a.execSessions().remove(s)
	s.markClosed()
	s.kill()
}
