package activities

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// Unified-exec sessions: a process the model starts with exec_command and
// keeps talking to with write_stdin. A session exists only in the worker
// process that started it, in memory; nothing of it survives that process
// (its processes die with it, see [sandbox.Start]), so a later call that
// reaches another process finds no session and says so. The workflow
// routes every call of a session to [Activities.SessionQueue] of the
// process that holds it.

// sessionBufferBytes bounds the output a session keeps that no call has
// read yet; older bytes are dropped (and counted).
const sessionBufferBytes = 1 << 20

// sessionTailBytes bounds the last output a session keeps for the report
// of a session that ended.
const sessionTailBytes = 2 << 10

// MaxSessionTailBytes bounds the last output a session keeps for the
// report of its end to a thread that watches it (the output a
// background terminal's wake-up shows).
const MaxSessionTailBytes = 16 << 10

// execSession is one running process and its unread output.
type execSession struct {
	id     int
	thread string
	proc   *sandbox.Process
	// master is the pseudo-terminal (tty sessions): the command's input
	// and output. Pipe sessions have none, and no input.
	master *os.File
	// snapshotWarning says why a login shell ran as one (its profile's
	// snapshot failed); the first output shows it.
	snapshotWarning string

	mu      sync.Mutex
	pending []byte
	dropped int64
	tail    []byte
	// watch receives output as it comes while a call waits on the
	// session (its live output, heartbeated).
	watch    io.Writer
	notify   chan struct{}
	finished chan struct{}
	exitCode int
	// busy counts the calls waiting on the session's output (left
	// hears when one leaves); claimed is set by whoever reports the
	// process's end (such a call, or a watch: [Activities.WatchSession]),
	// so it is reported once; closed is set when a close ends it.
	busy    int
	left    chan struct{}
	claimed bool
	closed  bool
	// handoff is where the session is in a local exec_command's
	// hand-off (handoffNone unless one started it).
	handoff atomic.Int32
	// seedLive: the next call's live output starts with the unread
	// output (what a handed-off exec_command printed inside its local
	// activity, which no follower saw).
	seedLive bool
}

// enter marks a call waiting on the session; false when its end was
// reported already (the call then finds no session).
func (s *execSession) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claimed {
		return false
	}
	s.busy++
	return true
}

// leave ends a call's wait; claim says it reports the process's end.
func (s *execSession) leave(claim bool) {
	s.mu.Lock()
	s.busy--
	if claim {
		s.claimed = true
	}
	s.mu.Unlock()
	select {
	case s.left <- struct{}{}:
	default:
	}
}

// claimIdle claims the report of the process's end for a watch when no
// call waits on the session; busy says one does (it reports the end).
func (s *execSession) claimIdle() (claimed, busy bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.claimed:
		return false, false
	case s.busy > 0:
		return false, true
	}
	s.claimed = true
	return true, false
}

func (s *execSession) markClosed() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (s *execSession) wasClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Write takes the command's output.
func (s *execSession) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.pending = append(s.pending, p...)
	if over := len(s.pending) - sessionBufferBytes; over > 0 {
		s.dropped += int64(over)
		s.pending = append(s.pending[:0:0], s.pending[over:]...)
	}
	s.tail = append(s.tail, p...)
	if len(s.tail) > 2*MaxSessionTailBytes {
		s.tail = append(s.tail[:0:0], s.tail[len(s.tail)-MaxSessionTailBytes:]...)
	}
	w := s.watch
	s.mu.Unlock()
	if w != nil {
		_, _ = w.Write(p)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

// take returns the unread output and how many bytes of it were dropped.
func (s *execSession) take() ([]byte, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, d := s.pending, s.dropped
	s.pending, s.dropped = nil, 0
	return p, d
}

// lastOutput is the session's last output, at most sessionTailBytes.
func (s *execSession) lastOutput() string { return s.lastBytes(sessionTailBytes) }

// lastBytes is the session's last output, at most n bytes (and at most
// [MaxSessionTailBytes]), cut at a UTF-8 boundary.
func (s *execSession) lastBytes(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tail
	if len(t) > n {
		t = t[len(t)-n:]
	}
	return strings.ToValidUTF8(string(t), "")
}

func (s *execSession) setWatch(w io.Writer) {
	s.mu.Lock()
	if s.seedLive && w != nil {
		_, _ = w.Write(s.pending)
		s.seedLive = false
	}
	s.watch = w
	s.mu.Unlock()
}

// seedNextWatch makes the next call's live output start with the unread
// output ([execSession.seedLive]).
func (s *execSession) seedNextWatch() {
	s.mu.Lock()
	s.seedLive = true
	s.mu.Unlock()
}

func (s *execSession) exited() bool {
	select {
	case <-s.finished:
		return true
	default:
		return false
	}
}

// kill ends the session's processes; finished closes soon after.
func (s *execSession) kill() { s.proc.Kill() }

// wait closes finished once the process is reaped and, for a terminal,
// its output read to the end (the master reads EIO when no process holds
// the slave any more).
func (s *execSession) wait(readerDone <-chan struct{}) {
	_, err := s.proc.Wait()
	if readerDone != nil {
		<-readerDone
		_ = s.master.Close()
	}
	s.exitCode = exitCodeOf(err)
	close(s.finished)
}

type sessionKey struct {
	thread string
	id     int
}

// sessionManager holds this worker process's sessions.
type sessionManager struct {
	mu       sync.Mutex
	sessions map[sessionKey]*execSession
}

func (a *Activities) execSessions() *sessionManager {
	a.sessionsOnce.Do(func() { a.sessions = &sessionManager{sessions: map[sessionKey]*execSession{}} })
	return a.sessions
}

func (m *sessionManager) get(thread string, id int) *execSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[sessionKey{thread, id}]
}

func (m *sessionManager) put(s *execSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := sessionKey{s.thread, s.id}
	if _, ok := m.sessions[k]; ok {
		return fmt.Errorf("session %d of thread %s exists already", s.id, s.thread)
	}
	m.sessions[k] = s
	return nil
}

func (m *sessionManager) remove(s *execSession) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions[sessionKey{s.thread, s.id}] == s {
		delete(m.sessions, sessionKey{s.thread, s.id})
	}
}

// take removes and returns the sessions of thread (all of them when ids
// is empty, else those listed).
func (m *sessionManager) take(thread string, ids []int) []*execSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*execSession
	for k, s := range m.sessions {
		if k.thread != thread {
			continue
		}
		if len(ids) > 0 && !containsInt(ids, k.id) {
			continue
		}
		delete(m.sessions, k)
		out = append(out, s)
	}
	return out
}

func (m *sessionManager) all() []*execSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*execSession
	for k, s := range m.sessions {
		delete(m.sessions, k)
		out = append(out, s)
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// CloseAllSessions ends every session of this worker process (the worker
// stops).
func (a *Activities) CloseAllSessions() {
	for _, s := range a.execSessions().all() {
		s.kill()
	}
}

// startSession starts the command of in as a session (not yet listed).
// A result is set when it could not start; it is what the model reads.
func (a *Activities) startSession(ctx context.Context, in ExecCommandInput) (*execSession, *SessionOutput) {
	fail := func(code int, msg string, sandboxErr bool) *SessionOutput {
		o := &SessionOutput{SessionID: in.SessionID, ExitCode: code, Output: msg, StartError: msg}
		if sandboxErr {
			o.StartError, o.SandboxError = "", msg
		}
		return o
	}
	argv, sandboxed, b, err := a.boundary(in.Exec)
	if err != nil {
		return nil, fail(sandbox.ExitSetupFailed, err.Error(), true)
	}
	exe, err := a.executable()
	if err != nil {
		return nil, fail(sandbox.ExitSetupFailed, fmt.Sprintf("the command was not run: finding our own executable (the supervising helper): %v", err), true)
	}
	s := &execSession{id: in.SessionID, thread: in.Exec.ThreadID, notify: make(chan struct{}, 1), finished: make(chan struct{}),
		left: make(chan struct{}, 1)}
	prep := a.loginShell(ctx, exe, in.Exec, argv, sandboxed, func() { activity.RecordHeartbeat(ctx, (&liveTail{}).progress(in.Exec.CallID)) })
	argv, s.snapshotWarning = prep.Argv, prep.Warning
	env := append(prep.Env, sessionEnv...)
	spec := sandbox.Spec{Exe: exe, Argv: argv, Boundary: b, Dir: in.Exec.Cwd, Env: env, Output: s, NoPIDNamespace: a.noPIDNamespace}
	var slave *os.File
	if in.TTY {
		s.master, slave, err = a.openPTY()
		if err != nil {
			return nil, fail(-1, fmt.Sprintf("the command was not run: tty was requested, but %v; run it again without tty", err), false)
		}
		spec.TTY = slave
	}
	proc, err := sandbox.Start(spec)
	if slave != nil {
		_ = slave.Close() // the command holds its own
	}
	if err != nil {
		if s.master != nil {
			_ = s.master.Close()
		}
		return nil, fail(127, err.Error(), false)
	}
	s.proc = proc
	var readerDone chan struct{}
	if s.master != nil {
		readerDone = make(chan struct{})
		go func() {
			defer close(readerDone)
			_, _ = io.Copy(s, s.master)
		}()
	}
	go s.wait(readerDone)
	return s, nil
}

// openPTY gives a session its terminal (none on a host without them, or
// in tests of that case).
func (a *Activities) openPTY() (master, slave *os.File, err error) {
	if a.noPTY {
		return nil, nil, sandbox.ErrNoPTY
	}
	return sandbox.OpenPTY(24, 80)
}

// sessionEnv keeps a session's output plain: no colours, no pager waiting
// for a key (the values Codex gives its sessions).
var sessionEnv = []string{"NO_COLOR=1", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GH_PAGER=cat", "COLORTERM="}

// collectFor waits up to yield for the session's output, returning early
// when the process ends; while it waits the output is heartbeated under
// callID (see [ExecProgress]).
func (a *Activities) collectFor(hb func(live *liveTail, since time.Time, grew bool), ka *keepAlive, s *execSession, yield time.Duration, done <-chan struct{}) (out []byte, dropped int64, exited bool) {
	live := &liveTail{}
	s.setWatch(live)
	defer s.setWatch(nil)
	start := time.Now()
	deadline := time.NewTimer(yield)
	defer deadline.Stop()
	liveTick := time.NewTicker(liveEvery)
	defer liveTick.Stop()
	var sent int64
	drain := func() {
		p, d := s.take()
		out, dropped = append(out, p...), dropped+d
	}
	for {
		select {
		case <-s.finished:
			drain()
			return out, dropped, true
		case <-deadline.C:
			drain()
			return out, dropped, s.exited()
		case <-done:
			drain()
			return out, dropped, s.exited()
		case <-s.notify:
		case <-liveTick.C:
			if n := live.written(); n != sent {
				sent = n
				ka.beat()
				hb(live, start, true)
			}
		case <-ka.C():
			if ka.due() {
				hb(live, start, false)
			}
		}
	}
}
