package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities/shellsnap"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// ExecInput is one shell command. The workflow runs it at most once.
type ExecInput struct {
	ThreadID  string            `json:"thread_id"`
	CallID    string            `json:"call_id"`
	Command   []string          `json:"command"`
	Cwd       string            `json:"cwd"`
	TimeoutMs int64             `json:"timeout_ms,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// MaxOutput bounds the output kept for the model (head and tail).
	MaxOutput int `json:"max_output,omitempty"`

	// SandboxMode is read-only, workspace-write or danger-full-access;
	// empty means workspace-write (fail closed).
	SandboxMode string `json:"sandbox_mode,omitempty"`
	// WorkspaceRoot is the thread's working directory, the first writable
	// root (Cwd may be another directory the model chose); empty means Cwd.
	WorkspaceRoot string `json:"workspace_root,omitempty"`
	// WritableRoots are configured extra writable roots.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// NetworkAccess lets a workspace-write command use the network.
	NetworkAccess bool `json:"network_access,omitempty"`
	// Unsandboxed runs the command without the sandbox: a person approved
	// exactly that.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// EnvPolicy filters the worker's environment; nil means the default
	// (variables that look like secrets are dropped).
	EnvPolicy *sandbox.EnvPolicy `json:"env_policy,omitempty"`
	// Resume names a command a local activity started and handed off
	// ([LocalExecOutput.Handoff]): the activity waits for it.
	Resume string `json:"resume,omitempty"`
	// Record, when set, is the command's key in the host-local record of
	// started commands: the activity leaves its record first (see
	// [startedCommands]), as [Activities.ExecHere] would have.
	Record string `json:"record,omitempty"`
}

// ExecOutput is a finished command. A command that fails is a normal
// result: the model reads it.
type ExecOutput struct {
	ExitCode   int    `json:"exit_code"`
	Output     string `json:"output"`
	TotalBytes int64  `json:"total_bytes"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	// FullOutput is the path of the untruncated output on the workspace host.
	FullOutput string `json:"full_output,omitempty"`
	// StartError says why the command could not start (not found, bad cwd).
	StartError string `json:"start_error,omitempty"`
	// Sandboxed is set when the command ran inside the sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
	// SandboxError says why the sandbox could not be applied; the command
	// did not run (fail closed).
	SandboxError string `json:"sandbox_error,omitempty"`
	// SandboxDenied is set when a sandboxed command failed in a way that
	// looks like the sandbox stopped it (permission denied, read-only file
	// system, no network).
	SandboxDenied bool `json:"sandbox_denied,omitempty"`
	// ShellSnapshot is set when a login shell (`bash -lc`, `zsh -lc`,
	// `sh -lc` of dash) ran as a non-login one with the snapshot of its
	// profile (see [shellsnap]).
	ShellSnapshot bool `json:"shell_snapshot,omitempty"`
}

// DefaultMaxOutput is how much command output a model sees by default.
const DefaultMaxOutput = 10 * 1024

// Exec runs a command, heartbeating while it runs; cancellation (an
// interrupted turn) or the worker's death ends every process it started
// (see [sandbox.Start]). With Resume set it goes on with a command a
// local activity started ([Activities.ExecHere]); with Record set it
// first leaves the host-local record of a started command, and reports
// the command interrupted when an earlier attempt left one.
func (a *Activities) Exec(ctx context.Context, in ExecInput) (*ExecOutput, error) {
	if in.Resume != "" {
		return a.resumeCommand(ctx, in)
	}
	if in.Record != "" {
		fresh, err := a.started().record(turnOf(ctx), in.Record)
		if err != nil {
			return nil, err
		}
		if !fresh {
			return nil, errCommandStartedBefore()
		}
	}
	c, early, err := a.startCommand(ctx, in, false)
	if c == nil {
		return early, err
	}
	return a.waitCommand(ctx, c, 0)
}

// command is a started command, until its output is taken.
type command struct {
	in        ExecInput
	proc      *sandbox.Process
	buf       *headTail
	live      *liveTail
	logPath   string
	logFile   *os.File
	sandboxed bool
	prep      shellsnap.Prepared
	start     time.Time
	// resumed is set once a regular activity took the command over from
	// the local one that started it.
	resumed bool
	// stop ends the command (StopCommand, the activity's cancellation);
	// stopCtx is done then; runCtx also when its timeout passes.
	stop    context.CancelCauseFunc
	stopCtx context.Context
	runCtx  context.Context
	// release frees the timeout, the stop registration and the log file.
	release func()
}

// startCommand starts in's command. It returns either the running
// command or, when the command could not start, the output that says so
// (or the error). A detached command outlives ctx: a local activity
// starts it and a regular one may wait for the rest.
func (a *Activities) startCommand(ctx context.Context, in ExecInput, detached bool) (*command, *ExecOutput, error) {
	if len(in.Command) == 0 {
		return nil, &ExecOutput{ExitCode: -1, StartError: "empty command"}, nil
	}
	max := in.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	base := ctx
	if detached {
		base = context.WithoutCancel(ctx)
	}
	c := &command{in: in, buf: &headTail{max: max}, live: &liveTail{}}
	var undo []func()
	c.release = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	fail := func(out *ExecOutput, err error) (*command, *ExecOutput, error) {
		c.release()
		return nil, out, err
	}
	// StopCommand ends the command through stopCtx, without waiting for
	// Temporal's cancellation to come back with a heartbeat.
	c.stopCtx, c.stop = context.WithCancelCause(base)
	undo = append(undo, func() { c.stop(nil) })
	if activity.IsActivity(ctx) {
		undo = append(undo, a.commands.add(runningKey(turnOf(ctx), in.CallID), c.stop))
	}
	c.runCtx = c.stopCtx
	if in.TimeoutMs > 0 {
		var cancel context.CancelFunc
		c.runCtx, cancel = context.WithTimeout(c.stopCtx, time.Duration(in.TimeoutMs)*time.Millisecond)
		undo = append(undo, cancel)
	}
	logPath, logFile, err := a.outputFile(in.ThreadID, in.CallID)
	if err != nil {
		return fail(nil, err)
	}
	c.logPath, c.logFile = logPath, logFile
	undo = append(undo, func() { logFile.Close() })
	argv, sandboxed, b, err := a.boundary(in)
	if err != nil {
		return fail(&ExecOutput{ExitCode: sandbox.ExitSetupFailed, SandboxError: err.Error(), Output: err.Error()}, nil)
	}
	c.sandboxed = sandboxed
	exe, err := a.executable()
	if err != nil {
		msg := fmt.Sprintf("the command was not run: finding our own executable (the supervising helper): %v", err)
		return fail(&ExecOutput{ExitCode: sandbox.ExitSetupFailed, SandboxError: msg, Output: msg}, nil)
	}
	c.prep = a.loginShell(ctx, exe, in, argv, sandboxed, func() { activity.RecordHeartbeat(ctx, c.live.progress(in.CallID)) })
	c.start = time.Now()
	// Every command runs through the helper, in every mode: it is what
	// keeps the command's processes from outliving this worker.
	proc, err := sandbox.Start(sandbox.Spec{Exe: exe, Argv: c.prep.Argv, Boundary: b, Dir: in.Cwd, Env: c.prep.Env,
		Output: io.MultiWriter(logFile, c.buf, c.live), NoPIDNamespace: a.noPIDNamespace})
	if err != nil {
		return fail(&ExecOutput{ExitCode: 127, StartError: err.Error(), Output: err.Error()}, nil)
	}
	c.proc = proc
	return c, nil, nil
}

// waitCommand waits for c, heartbeating from ctx, and returns its
// outcome; the activity's cancellation stops it. With budget > 0 it
// returns nil, nil when c still runs after that long, and c goes on.
func (a *Activities) waitCommand(ctx context.Context, c *command, budget time.Duration) (*ExecOutput, error) {
	unwatch := context.AfterFunc(ctx, func() { c.stop(context.Cause(ctx)) })
	defer unwatch()
	var over <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		over = t.C
	}
	// Output that grew is heartbeated soon (see [ExecProgress]); the
	// worker's heartbeat throttle bounds how often it reaches the server.
	// A quiet command only keeps its activity alive, rarely
	// ([Activities.keepAliveEvery]).
	// The first comes after a second, as before, so a command whose worker
	// dies soon still reports how long it ran.
	ka := a.newKeepAlive(ctx)
	defer ka.stop()
	every := liveEvery
	if a.liveEvery > 0 {
		every = a.liveEvery
	}
	liveTick := time.NewTicker(every)
	defer liveTick.Stop()
	var sent int64
	wake := a.newWaker(ctx, c.start)
	heartbeat := func() {
		if activity.IsActivity(ctx) {
			p := c.live.progress(c.in.CallID)
			p.ElapsedMs = time.Since(c.start).Milliseconds()
			p.WakeAfterMs = wake.afterMs()
			sent = p.Total
			ka.beat()
			activity.RecordHeartbeat(ctx, p)
		}
	}
	if c.resumed && c.live.written() != 0 {
		// A handed-off command's output so far, printed while it ran as a
		// local activity (which no follower sees), goes out now.
		heartbeat()
	}
	timedOut := false
loop:
	for {
		select {
		case <-c.proc.Done():
			break loop
		case <-over:
			return nil, nil
		case <-c.runCtx.Done():
			timedOut = c.stopCtx.Err() == nil
			c.proc.Kill()
			<-c.proc.Done()
			break loop
		case <-liveTick.C:
			if c.live.written() != sent {
				// Output after a silence wakes the followers first, so
				// the heartbeat tells them the silence the next wake needs.
				wake.grew(ctx, time.Now())
				heartbeat()
			}
		case <-ka.C():
			if ka.due() {
				heartbeat()
			}
		}
	}
	defer c.release()
	return c.output(timedOut)
}

// output is the outcome of c, which has exited.
func (c *command) output(timedOut bool) (*ExecOutput, error) {
	in := c.in
	setupErr, waitErr := c.proc.Wait()
	out := &ExecOutput{
		Output:     c.buf.String(),
		TotalBytes: c.buf.Total(),
		DurationMs: time.Since(c.start).Milliseconds(),
		TimedOut:   timedOut,
		FullOutput: c.logPath,
	}
	out.ExitCode = exitCodeOf(waitErr)
	if setupErr != "" {
		msg := setupErr
		return &ExecOutput{ExitCode: sandbox.ExitSetupFailed, SandboxError: msg, Output: msg,
			DurationMs: out.DurationMs, FullOutput: c.logPath}, nil
	}
	out.Sandboxed = c.sandboxed
	out.ShellSnapshot = c.prep.Applied
	if c.prep.Warning != "" {
		out.Output += "\n[" + c.prep.Warning + "]"
	}
	out.SandboxDenied = c.sandboxed && !timedOut && sandbox.LikelyDenied(out.ExitCode, out.Output)
	if timedOut {
		out.Output += fmt.Sprintf("\n[command timed out after %d ms]", in.TimeoutMs)
	}
	if c.stopCtx.Err() != nil && !timedOut {
		// The turn was stopped: the cancellation carries what the command
		// did, so its item can tell how long it ran and what it printed.
		return out, temporal.NewCanceledError(*out)
	}
	return out, nil
}

// boundary returns the command and the boundary the helper applies to
// it: none (danger-full-access) under danger-full-access or when a person
// approved running it unsandboxed, which sandboxed reports.
func (a *Activities) boundary(in ExecInput) (argv []string, sandboxed bool, b sandbox.Boundary, err error) {
	mode := sandbox.WorkspaceWrite
	if in.SandboxMode != "" {
		if mode, err = sandbox.ParseMode(in.SandboxMode); err != nil {
			return nil, false, b, err
		}
	}
	if mode == sandbox.DangerFullAccess || in.Unsandboxed {
		return in.Command, false, sandbox.Boundary{Mode: sandbox.DangerFullAccess}, nil
	}
	b = sandbox.Boundary{Mode: mode, Network: in.NetworkAccess}
	if a.Home != "" {
		b.Protected = []string{a.Home}
	}
	if mode == sandbox.WorkspaceWrite {
		root := in.WorkspaceRoot
		if root == "" {
			root = in.Cwd
		}
		if b.WritableRoots, err = sandbox.WritableRoots(root, in.WritableRoots, os.TempDir(), "/tmp"); err != nil {
			return nil, false, b, fmt.Errorf("cannot apply the workspace-write sandbox: %w", err)
		}
	}
	return in.Command, true, b, nil
}

// commandEnv is a command's environment: the worker's, filtered by the
// thread's policy, then this worker's and the command's own variables.
func (a *Activities) commandEnv(in ExecInput) []string {
	policy := sandbox.EnvPolicy{}
	if in.EnvPolicy != nil {
		policy = *in.EnvPolicy
	}
	env := sandbox.FilterEnv(os.Environ(), policy)
	for k, v := range a.CommandEnv {
		env = append(env, k+"="+v)
	}
	for k, v := range in.Env {
		env = append(env, k+"="+v)
	}
	return env
}

func (a *Activities) executable() (string, error) {
	if a.Executable != "" {
		return a.Executable, nil
	}
	return os.Executable()
}

func (a *Activities) heartbeatEvery() time.Duration {
	if a.HeartbeatEvery > 0 {
		return a.HeartbeatEvery
	}
	return time.Second
}

func (a *Activities) outputFile(thread, call string) (string, *os.File, error) {
	dir := filepath.Join(a.Store.Dir(), "outputs", safeName(thread))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("creating output dir: %w", err)
	}
	p := filepath.Join(dir, safeName(call)+".log")
	f, err := os.Create(p)
	if err != nil {
		return "", nil, fmt.Errorf("creating output file: %w", err)
	}
	return p, f, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// snapshots is this worker's cache of login-shell snapshots, made on
// first use (it needs our executable, the sandbox helper).
func (a *Activities) snapshots(exe string) *shellsnap.Cache {
	a.snapOnce.Do(func() {
		a.snaps = &shellsnap.Cache{Dir: filepath.Join(a.Store.Dir(), "shell_snapshots"), Exe: exe,
			NoPIDNamespace: a.noPIDNamespace, Timeout: a.ShellSnapshotTimeout, Disabled: a.NoShellSnapshot}
	})
	return a.snaps
}

// exitCodeOf is the exit code a command's wait error stands for: 0 for
// none, 128+9 for a kill, -1 when it did not exit at all.
func exitCodeOf(waitErr error) int {
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		return 0
	case errors.As(waitErr, &exitErr):
		if code := exitErr.ExitCode(); code >= 0 {
			return code
		}
		return 128 + int(syscall.SIGKILL)
	}
	return -1
}

// loginShell is the argv and environment a command runs with: a login
// shell as a non-login one with the snapshot of its profile (the approval
// and the item keep the command as asked), anything else as given; the
// environment is the policy's. A snapshot that failed is warned of here
// once; the caller shows Warning after the command's output.
func (a *Activities) loginShell(ctx context.Context, exe string, in ExecInput, argv []string, sandboxed bool, heartbeat func()) shellsnap.Prepared {
	env := a.commandEnv(in)
	policy := sandbox.EnvPolicy{}
	if in.EnvPolicy != nil {
		policy = *in.EnvPolicy
	}
	root := in.WorkspaceRoot
	if root == "" {
		root = in.Cwd
	}
	prep := a.prepareShell(ctx, exe, shellsnap.Request{Argv: argv, Dir: root, Env: env, Policy: policy, Confined: sandboxed}, heartbeat)
	switch {
	case prep.Warning == "":
	case a.Warn != nil:
		a.Warn(prep.Warning)
	case activity.IsActivity(ctx):
		activity.GetLogger(ctx).Warn("shell snapshot failed", "thread", in.ThreadID, "call", in.CallID, "warning", prep.Warning)
	}
	return prep
}

// prepareShell runs [shellsnap.Cache.Prepare], heartbeating while a
// capture reads the login profile (up to its timeout).
func (a *Activities) prepareShell(ctx context.Context, exe string, r shellsnap.Request, heartbeat func()) shellsnap.Prepared {
	done := make(chan shellsnap.Prepared, 1)
	go func() { done <- a.snapshots(exe).Prepare(ctx, r) }()
	tick := time.NewTicker(a.heartbeatEvery())
	defer tick.Stop()
	for {
		select {
		case p := <-done:
			return p
		case <-tick.C:
			if activity.IsActivity(ctx) {
				heartbeat()
			}
		}
	}
}
