package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Spec is one command for [Start] to run through the helper.
type Spec struct {
	// Exe is our own binary, re-executed as the helper.
	Exe string
	// Argv is the command; Boundary what it may touch (its descriptors
	// are set by Start).
	Argv     []string
	Boundary Boundary
	Dir      string
	Env      []string
	// Output receives stdout and stderr together (unused with TTY).
	Output io.Writer
	// Stdin is the command's standard input (nil: /dev/null).
	Stdin *os.File
	// TTY, the slave side of a pseudo-terminal ([OpenPTY]), becomes the
	// command's standard input, output and error and its controlling
	// terminal: the helper starts a session of its own instead of a
	// process group (its group is still its pid, so [Process.Kill] works
	// unchanged).
	TTY *os.File
	// NoPIDNamespace starts the helper without a PID namespace, as on a
	// host that has none (tests of the fallback).
	NoPIDNamespace bool
}

// Process is a command started by [Start]: the helper, which applied the
// boundary and supervises everything the command starts.
type Process struct {
	// Namespaced tells that the helper is init of a PID namespace of its
	// own: every process of the command dies with it, whatever it does.
	Namespaced bool
	// termGrace is the boundary's: the helper ends the command with it.
	termGrace time.Duration
	cmd       *exec.Cmd
	lifeline  *os.File
	done      chan struct{}
	err       error
	setup     string
}

// Report and lifeline descriptors in the helper (ExtraFiles 0 and 1).
const (
	reportFD   = 3
	lifelineFD = 4
)

// killGrace is how long a helper without a namespace of its own has to
// end the command's processes on SIGTERM before its group is SIGKILLed.
const killGrace = 3 * time.Second

// Start runs the command through the helper so that none of its processes
// outlives the worker. The helper is started, in order of preference, as
// init of a new PID namespace (root), of a new user and PID namespace
// (other users), or, where the kernel allows neither, as a plain child
// that supervises the command as its subreaper (see [supervise]).
//
// Two things tie the helper to this process: its parent-death signal and
// a lifeline pipe whose write end only this process holds. The kernel
// sends the parent-death signal when the thread that forked the helper
// ends, not the process, and Go ends threads at will, so the fork happens
// on a goroutine locked to its thread until the helper is reaped; the
// lifeline covers whatever the signal cannot (the helper reads end of file
// however this process dies).
//
// With a [Boundary.TermGrace] the command is always started through the
// helper, whose parent-death signal is then SIGTERM in every way: on
// either sign of the worker's death it asks the command's processes to
// end with SIGTERM and kills them after the grace (see [supervise]).
// Without one a namespaced command dies with the worker at once.
func Start(s Spec) (*Process, error) {
	p := &Process{done: make(chan struct{}), termGrace: s.Boundary.TermGrace}
	started := make(chan error, 1)
	go p.run(s, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Process) run(s Spec, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	report, err := p.start(s)
	started <- err
	if err != nil {
		return
	}
	setup := make(chan string, 1)
	go func() {
		if report == nil { // no helper: nothing to report
			setup <- ""
			return
		}
		b, _ := io.ReadAll(io.LimitReader(report, 64<<10))
		_ = report.Close()
		setup <- string(b)
	}()
	p.err = p.cmd.Wait()
	p.setup = <-setup
	if p.lifeline != nil {
		_ = p.lifeline.Close()
	}
	close(p.done)
}

// way is one way to start the helper; namespaced ways put it in a PID
// namespace of its own.
type way struct {
	namespaced bool
	attr       func() *syscall.SysProcAttr
}

// start tries each way to start the helper, from the strictest.
func (p *Process) start(s Spec) (*os.File, error) {
	graceful := s.Boundary.TermGrace > 0
	ways := startWays(graceful)
	if s.NoPIDNamespace {
		ways = ways[len(ways)-1:]
	}
	var err error
	for _, w := range ways {
		var report *os.File
		if w.namespaced && s.Boundary.Mode == DangerFullAccess && !graceful {
			// Nothing to restrict: the command itself is init of its PID
			// namespace, with the parent-death signal, and needs no helper
			// (whose start costs a run of our whole binary per command).
			// A graceful end needs the helper: the kernel SIGKILLs all of a
			// namespace whose init dies, and a parent-death SIGTERM would
			// not reach a command that is init and has no handler for it.
			if err = p.direct(s, w.attr()); err == nil {
				p.Namespaced = true
				return nil, nil
			}
			if !namespaceRefused(err) {
				break
			}
			continue
		}
		if report, err = p.try(s, w.attr()); err == nil {
			p.Namespaced = w.namespaced
			return report, nil
		}
		if !namespaceRefused(err) {
			break
		}
	}
	return nil, err
}

// try starts the helper once with attr, passing it the report pipe's
// write end and the lifeline's read end.
func (p *Process) try(s Spec, attr *syscall.SysProcAttr) (*os.File, error) {
	reportR, reportW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the sandbox report pipe: %w", err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		_, _ = reportR.Close(), reportW.Close()
		return nil, fmt.Errorf("creating the lifeline pipe: %w", err)
	}
	b := s.Boundary
	b.ReportFD, b.LifelineFD = reportFD, lifelineFD
	argv := Transform(s.Exe, s.Argv, b)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	s.wire(cmd, attr)
	cmd.ExtraFiles = []*os.File{reportW, lifeR}
	err = cmd.Start()
	// The helper holds its own copies now; ours would keep the pipes open.
	_, _ = reportW.Close(), lifeR.Close()
	if err != nil {
		_, _ = reportR.Close(), lifeW.Close()
		return nil, err
	}
	p.cmd, p.lifeline = cmd, lifeW
	return reportR, nil
}

// direct starts the command itself with attr (a PID namespace of its own).
func (p *Process) direct(s Spec, attr *syscall.SysProcAttr) error {
	if len(s.Argv) == 0 {
		return errors.New("no command")
	}
	path, err := lookPathIn(s.Argv[0], s.Env)
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", s.Argv[0], ErrCommandNotFound, err)
	}
	cmd := exec.Command(path, s.Argv[1:]...)
	cmd.Args[0] = s.Argv[0]
	cmd.Dir, cmd.Env = s.Dir, s.Env
	s.wire(cmd, attr)
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd = cmd
	return nil
}

// wire connects the command's standard streams and sets attr on it.
func (s Spec) wire(cmd *exec.Cmd, attr *syscall.SysProcAttr) {
	cmd.SysProcAttr = attr
	if s.TTY == nil {
		cmd.Stdout, cmd.Stderr = s.Output, s.Output
		if s.Stdin != nil {
			cmd.Stdin = s.Stdin
		}
		return
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.TTY, s.TTY, s.TTY
	// A session leader cannot also be moved into a new group (setpgid
	// fails with EPERM), and setsid makes its group its pid anyway.
	attr.Setpgid, attr.Setsid, attr.Setctty, attr.Ctty = false, true, true, 0
}

// lookPathIn finds a command as a shell with environment env would.
func lookPathIn(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if full, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return full, nil
		}
	}
	return "", exec.ErrNotFound
}

// Pid is the helper's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the helper has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the helper and returns its exit error (as
// [exec.Cmd.Wait]) and, when the boundary could not be applied and the
// command did not run, why.
func (p *Process) Wait() (setup string, err error) {
	<-p.done
	return p.setup, p.err
}

// Kill ends the command and every process it started. A namespaced
// helper is SIGKILLed with its group: the kernel kills the rest. One
// without a namespace is asked with SIGTERM to kill what it supervises
// (after its [Boundary.TermGrace], if it has one), and its group is
// SIGKILLed if it has not exited after [killGrace].
func (p *Process) Kill() {
	select {
	case <-p.done:
		return // reaped: its PID may belong to another process now
	default:
	}
	pid := p.cmd.Process.Pid
	if p.Namespaced {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	go func() {
		t := time.NewTimer(killGrace)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}()
}

// stopMargin is how long after its grace a stopped helper may take to
// exit before it is killed.
const stopMargin = time.Second

// Stop ends the command and every process it started, letting them run
// their exit traps (a login profile cut off midway may hold a lock, as
// pyenv's rehash does, that only its trap removes), and returns once the
// helper has exited. With a [Boundary.TermGrace] only the helper is sent
// SIGTERM: it passes it to every process of the command and kills them
// after the grace; it is killed itself if it has not exited a little
// after that. Without one, Stop is [Process.Kill].
func (p *Process) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	if p.termGrace <= 0 {
		p.Kill()
		<-p.done
		return
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	t := time.NewTimer(p.termGrace + stopMargin)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	}
	p.Kill()
	<-p.done
}

// namespaceRefused tells a failure to create the helper's namespaces
// (try the next way) from one that any way would meet (a missing cwd).
func namespaceRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
