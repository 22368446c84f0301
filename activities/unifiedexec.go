package activities

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// ExecCommandInput starts a unified-exec session (exec_command). The
// workflow runs it at most once, on the workspace host's queue.
type ExecCommandInput struct {
	// Exec is the command as a one-shot command would run: argv, cwd,
	// environment policy and sandbox (its timeout is not used).
	Exec ExecInput `json:"exec"`
	// SessionID is the id the thread gives the session (unique per thread).
	SessionID int  `json:"session_id"`
	TTY       bool `json:"tty,omitempty"`
	// YieldMs is how long to wait for output before answering (already
	// clamped by the workflow).
	YieldMs int64 `json:"yield_ms"`
	// MaxTokens bounds the output returned (about 4 bytes a token).
	MaxTokens int `json:"max_tokens"`
}

// WriteStdinInput writes to (or polls) a session of this worker process.
type WriteStdinInput struct {
	ThreadID  string `json:"thread_id"`
	CallID    string `json:"call_id"`
	SessionID int    `json:"session_id"`
	Chars     string `json:"chars,omitempty"`
	YieldMs   int64  `json:"yield_ms"`
	MaxTokens int    `json:"max_tokens"`
	// StopKey, when set, is the key (the write_stdin's own call id) under
	// which the turn's [Activities.StopCommand] ends the wait at once.
	StopKey string `json:"stop_key,omitempty"`
}

// SessionOutput is the output of one exec_command or write_stdin call.
type SessionOutput struct {
	SessionID int `json:"session_id"`
	// Running: the process is still running after the wait; its session
	// lives in the process whose queue is Queue.
	Running  bool   `json:"running,omitempty"`
	Queue    string `json:"queue,omitempty"`
	ExitCode int    `json:"exit_code"`
	// Output is what the command wrote during the call, cut to the token
	// budget; OriginalTokens is its size before the cut.
	Output         string `json:"output"`
	OriginalTokens int    `json:"original_tokens"`
	// Dropped counts bytes the session could not keep since the last call.
	Dropped int64  `json:"dropped,omitempty"`
	WallMs  int64  `json:"wall_ms"`
	ChunkID string `json:"chunk_id"`
	// Tail is the session's last output (bounded), kept by the thread for
	// the report of a session whose worker stopped.
	Tail string `json:"tail,omitempty"`
	// Unknown: this worker process holds no such session (it ended, was
	// closed, or belonged to a process that stopped).
	Unknown bool `json:"unknown,omitempty"`
	// StdinClosed: chars were written to a session without a terminal.
	StdinClosed bool `json:"stdin_closed,omitempty"`
	// StartError and SandboxError say why the command did not start.
	StartError   string `json:"start_error,omitempty"`
	SandboxError string `json:"sandbox_error,omitempty"`
}

// CloseSessionsInput ends sessions of a thread in this worker process
// (all of them when IDs is empty).
type CloseSessionsInput struct {
	ThreadID string `json:"thread_id"`
	IDs      []int  `json:"ids,omitempty"`
}

// CloseSessionsOutput lists the sessions that were ended.
type CloseSessionsOutput struct {
	Closed []int `json:"closed,omitempty"`
}

// ExecCommand starts a session and waits up to the yield time for its
// output. A process that ended by then is gone; one still running stays
// in this worker process for later [Activities.WriteStdin] calls. An
// interrupted turn ends the process (the model never learned its id);
// its [Activities.StopCommand], naming the call id, does so at once.
func (a *Activities) ExecCommand(ctx context.Context, in ExecCommandInput) (*SessionOutput, error) {
	ctx, unstop := a.stoppable(ctx, in.Exec.CallID)
	defer unstop()
	if len(in.Exec.Command) == 0 {
		return &SessionOutput{SessionID: in.SessionID, ExitCode: -1, StartError: "empty command", Output: "empty command"}, nil
	}
	if in.Exec.Record != "" {
		// A local attempt of this call may have started it on this host
		// ([Activities.ExecCommandHere]) before its task failed.
		fresh, err := a.started().record(turnOf(ctx), in.Exec.Record)
		if err != nil {
			return nil, err
		}
		if !fresh {
			return nil, errCommandStartedBefore()
		}
	}
	start := time.Now()
	s, failed := a.startSession(ctx, in)
	if failed != nil {
		failed.ChunkID = chunkID()
		return failed, nil
	}
	s.enter()
	if err := a.execSessions().put(s); err != nil {
		s.kill()
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "SessionExists", nil)
	}
	out := a.collect(ctx, s, in.Exec.CallID, in.YieldMs, in.MaxTokens, start)
	defer func() { s.leave(!out.Running) }()
	if a.settleCall(ctx, s, out) {
		return out, temporal.NewCanceledError(*out)
	}
	return out, nil
}

// WriteStdin writes chars to a session's terminal (nothing: a poll) and
// waits up to the yield time for its output. A stop of the turn
// ([Activities.StopCommand] naming StopKey) ends the wait at once; the
// session goes on.
func (a *Activities) WriteStdin(ctx context.Context, in WriteStdinInput) (*SessionOutput, error) {
	ctx, unstop := a.stoppable(ctx, in.StopKey)
	defer unstop()
	start := time.Now()
	s := a.execSessions().get(in.ThreadID, in.SessionID)
	if s == nil || !s.enter() {
		return &SessionOutput{SessionID: in.SessionID, Unknown: true, ChunkID: chunkID()}, nil
	}
	exited := false
	defer func() { s.leave(exited) }()
	if in.Chars != "" && !s.exited() {
		if s.master == nil {
			return &SessionOutput{SessionID: in.SessionID, Running: true, Queue: a.SessionQueue, StdinClosed: true,
				ChunkID: chunkID(), Tail: s.lastOutput()}, nil
		}
		if _, err := s.master.Write([]byte(in.Chars)); err != nil && !s.exited() {
			return nil, temporal.NewNonRetryableApplicationError("writing to the session: "+err.Error(), "SessionWrite", nil)
		}
	}
	out := a.collect(ctx, s, in.CallID, in.YieldMs, in.MaxTokens, start)
	exited = !out.Running
	return out, nil
}

// CloseSessions ends sessions of a thread held by this worker process.
func (a *Activities) CloseSessions(ctx context.Context, in CloseSessionsInput) (*CloseSessionsOutput, error) {
	out := &CloseSessionsOutput{}
	for _, s := range a.execSessions().take(in.ThreadID, in.IDs) {
		s.markClosed()
		s.kill()
		out.Closed = append(out.Closed, s.id)
	}
	return out, nil
}

// collect waits for a session's output and describes the session after
// the wait; a session whose process ended is removed.
func (a *Activities) collect(ctx context.Context, s *execSession, callID string, yieldMs int64, maxTokens int, start time.Time) *SessionOutput {
	// As a command's: output is heartbeated soon, a quiet wait only keeps
	// the activity alive, rarely, and output after a silence first wakes
	// the turn's followers (see [waker]).
	wake := a.newWaker(ctx, start)
	hb := func(live *liveTail, since time.Time, grew bool) {
		if !activity.IsActivity(ctx) {
			return
		}
		if grew {
			wake.grew(ctx, time.Now())
		}
		p := live.progress(callID)
		p.ElapsedMs = time.Since(since).Milliseconds()
		p.WakeAfterMs = wake.afterMs()
		activity.RecordHeartbeat(ctx, p)
	}
	ka := a.newKeepAlive(ctx)
	defer ka.stop()
	raw, dropped, exited := a.collectFor(hb, ka, s, time.Duration(yieldMs)*time.Millisecond, ctx.Done())
	text, tokens := truncateTokens(string(raw), maxTokens)
	out := &SessionOutput{SessionID: s.id, Output: text, OriginalTokens: tokens, Dropped: dropped,
		WallMs: time.Since(start).Milliseconds(), ChunkID: chunkID(), Tail: s.lastOutput()}
	if exited {
		out.ExitCode = s.exitCode
		a.execSessions().remove(s)
		return out
	}
	out.Running, out.Queue = true, a.SessionQueue
	return out
}

// approxTokens estimates a text's tokens as Codex does: 4 bytes a token.
func approxTokens(n int) int { return (n + 3) / 4 }

// truncateTokens cuts text to about maxTokens tokens, keeping its head and
// tail and marking the cut; it also returns the text's own token count.
func truncateTokens(text string, maxTokens int) (string, int) {
	tokens := approxTokens(len(text))
	if maxTokens <= 0 || tokens <= maxTokens {
		return strings.ToValidUTF8(text, "\uFFFD"), tokens
	}
	budget := maxTokens * 4
	head, tail := text[:budget/2], text[len(text)-budget/2:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	cut := tokens - approxTokens(len(head)+len(tail))
	return fmt.Sprintf("%s…%d tokens truncated…%s", head, cut, tail), tokens
}

// chunkID names one chunk of output, as Codex does (six hex digits).
func chunkID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
