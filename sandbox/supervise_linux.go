//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervise starts the command as a child of the helper and stays until
// it ends, so that nothing it started outlives the worker:
//
//   - As init of a PID namespace of its own (see [Start]), the helper
//     only has to die: the kernel then kills every process in the
//     namespace, however it forked, setsid or daemonized.
//   - Without one (namespaces unavailable) the helper is the command's
//     subreaper, so orphans come to it rather than to init, and when the
//     command ends, or the worker goes, it kills its children until none
//     is left. A process that escapes the helper's descendants (or kills
//     the helper first) is out of reach: that is the weaker guarantee.
//
// Either way the helper ends the command when the lifeline reads end of
// file (the worker is gone) or on SIGTERM (the worker's stop, or its
// parent-death signal), and exits with the command's status: its exit
// code, or 128 + the signal that killed it. It SIGKILLs the command at
// once, or, with a [Boundary.TermGrace], first sends SIGTERM to all of
// its processes and waits up to the grace for every one to exit (so that
// a lock a profile took is removed by its trap) before killing the rest.
func supervise(path string, argv []string, b Boundary) error {
	ownNS := os.Getpid() == 1
	if !ownNS {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("supervising the command: becoming its subreaper: %w", err)
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	// The child's parent-death signal follows this (locked) thread, which
	// lives as long as the helper: should the helper die, the command goes.
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return fmt.Errorf("starting %s: %w", argv[0], err)
	}
	if b.ReportFD > 0 {
		_ = unix.Close(b.ReportFD) // the worker reads end of file: the command started
	}
	// The stop signal reaches us on another thread; the kill must come
	// from this one, see [watch].
	stopR, stopW, err := os.Pipe()
	if err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		return fmt.Errorf("supervising the command: %w", err)
	}
	go func() { <-stop; _, _ = stopW.Write([]byte{1}) }()
	status := watch(pid, b.LifelineFD, int(stopR.Fd()), b.TermGrace, ownNS)
	if !ownNS {
		endChildren()
	}
	// In a namespace of our own, this exit kills whatever is left in it.
	os.Exit(exitStatus(status))
	return nil
}

// watch waits, on the helper's one locked thread, until the command
// exits, and ends it when the lifeline reads end of file or stop is
// readable (see [supervise] and [ender]); it reaps orphans re-parented to
// the helper meanwhile. Signals are sent from this thread because
// Landlock gives each thread of the helper a domain of its own and lets a
// thread signal only processes of its own domain (or nested ones): the
// command's is this thread's. A pidfd tells when the command exits and
// keeps the kill from hitting another process should its PID be reused;
// without pidfds (kernels before 5.3) the loop polls.
func watch(pid, lifeline, stop int, grace time.Duration, ownNS bool) syscall.WaitStatus {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		pidfd = -1
	}
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}, {Fd: -1}}
	if lifeline > 0 {
		fds[2] = unix.PollFd{Fd: int32(lifeline), Events: unix.POLLIN}
	}
	// Orphans are reaped at least this often; the command at once.
	timeout := 1000
	if pidfd < 0 {
		timeout = 50
	}
	e := ender{pid: pid, pidfd: pidfd, ownNS: ownNS}
	var status syscall.WaitStatus
	exited := false
	for {
		none := reap(pid, &status, &exited)
		if exited && (e.deadline.IsZero() || none) {
			return status
		}
		wait := timeout
		if !e.deadline.IsZero() {
			left := time.Until(e.deadline)
			if left <= 0 {
				e.kill()
				if exited {
					return status // what is left dies with the helper (or endChildren)
				}
				e.deadline = time.Time{} // now wait for the command's exit
				continue
			}
			wait = min(wait, graceTick, int(left/time.Millisecond)+1)
		}
		if exited {
			fds[0].Fd = -1 // a pidfd of an exited process stays readable
		}
		if _, err := unix.Poll(fds, wait); err != nil && !errors.Is(err, unix.EINTR) {
			timeout = 50 // cannot poll: fall back to a slow loop
		}
		if fds[1].Revents != 0 || fds[2].Revents != 0 {
			if grace > 0 {
				e.term(grace)
			} else {
				e.kill()
			}
			fds[1].Fd, fds[2].Fd = -1, -1 // once is enough; now wait for the exit
		}
	}
}

// graceTick is how often (ms) a graceful end looks for processes that
// exited: orphans give no pidfd to wait on.
const graceTick = 20

// ender ends the command's processes, from the helper's locked thread.
type ender struct {
	pid, pidfd int
	ownNS      bool
	// deadline is when a graceful end turns into a kill (zero: none is
	// under way).
	deadline time.Time
}

// term sends SIGTERM to every process of the command: in a namespace of
// the helper's own, to all of them (kill(-1) spares only init); without
// one, to the helper's process group, which the command starts in (the
// helper, which gets it too, has taken the signal already). The rest are
// killed after grace.
func (e *ender) term(grace time.Duration) {
	if e.ownNS {
		_ = syscall.Kill(-1, syscall.SIGTERM)
	} else {
		_ = syscall.Kill(0, syscall.SIGTERM)
		e.signal(syscall.SIGTERM) // should the command have left the group
	}
	e.deadline = time.Now().Add(grace)
}

// kill SIGKILLs the command, and in a namespace of the helper's own every
// process in it (without one, [endChildren] does that after the command).
func (e *ender) kill() {
	if e.ownNS {
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
	e.signal(syscall.SIGKILL)
}

// signal sends sig to the command itself.
func (e *ender) signal(sig syscall.Signal) {
	if e.pidfd >= 0 {
		_ = unix.PidfdSendSignal(e.pidfd, sig, nil, 0)
	} else {
		_ = syscall.Kill(e.pid, sig)
	}
}

// reap reaps every child that has exited, notes the command's status in
// ws once it is among them (exited), and tells whether no child is left.
func reap(pid int, ws *syscall.WaitStatus, exited *bool) (none bool) {
	for {
		var s syscall.WaitStatus
		got, err := syscall.Wait4(-1, &s, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			*exited = true // no child left: nothing to wait for
			return true
		case got == pid:
			*ws, *exited = s, true
		case got <= 0:
			return false
		}
	}
}

// endChildren kills the helper's children until it has none. Killed
// children hand their own children to the helper (it is their subreaper),
// so each round reaches one generation further. Only this goroutine
// reaps, so a child found in /proc stays unreaped, and its PID unreused,
// until it is killed.
func endChildren() {
	self := os.Getpid()
	for {
		kids := childrenOf(self)
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		flags := 0
		if len(kids) == 0 {
			// An orphan re-parented after the scan must not be waited for
			// unkilled: look again instead.
			flags = syscall.WNOHANG
		}
		_, err := syscall.Wait4(-1, nil, flags, nil)
		if errors.Is(err, syscall.ECHILD) {
			return
		}
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// childrenOf lists the processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 > len(b) {
			continue
		}
		f := bytes.Fields(b[i+2:])
		if len(f) > 1 && string(f[1]) == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// exitStatus is the shell's convention for a child's status.
func exitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
