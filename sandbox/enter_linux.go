//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minLandlockABI is the oldest Landlock ABI we accept: ABI 3 (Linux 6.2)
// is the first that controls truncate(2); older kernels would let a
// read-only command empty any file it can name.
const minLandlockABI = 3

// maxLandlockABI is the newest ABI whose rights we ask for; this build
// was written and tested against it.
const maxLandlockABI = 7

// hint is what a refusal tells the person to do.
const hint = "Fix the host (Linux 6.2+ with Landlock enabled, run the worker as root for namespaces), " +
	"or use sandbox_mode = \"danger-full-access\" only inside an outside VM or container that is the boundary"

// Enter applies b to this process, starts argv inside it and supervises
// it until it ends (see [supervise]), then exits with its status. It
// returns only on failure, having run nothing: the caller must refuse the
// command (fail closed). It must run in a process of its own (the helper),
// never in the worker: the restrictions cannot be lifted.
//
// Under read-only and workspace-write, in order: a new mount namespace
// where the protected paths under the writable roots are bound read-only
// (and, when the helper is init of a PID namespace of its own, a /proc of
// that namespace); a new network namespace (only an unconnected loopback)
// unless b.Network; Landlock rules (read anywhere, write only under the
// writable roots and a few device files); all capabilities dropped, so
// root inside cannot undo any of it (Landlock already forbids mount, and
// without CAP_SYS_ADMIN setns back to the host's network fails). Under
// danger-full-access nothing is restricted, but the command is supervised
// all the same.
func Enter(b Boundary, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command")
	}
	// Neither pipe may reach the command: the report pipe closes when the
	// command starts, and the lifeline must be held by the worker alone.
	for _, fd := range []int{b.ReportFD, b.LifelineFD} {
		if fd > 0 {
			unix.CloseOnExec(fd)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", argv[0], ErrCommandNotFound, err)
	}
	if b.TermGrace > 0 {
		holdOutput()
	}
	// Namespaces and capabilities belong to the OS thread, and the command
	// is forked from it (its parent-death signal follows this thread too),
	// so the helper stays on this one thread.
	runtime.LockOSThread()
	if b.Mode != DangerFullAccess {
		if err := restrict(b); err != nil {
			return err
		}
	}
	return supervise(path, argv, b)
}

// holdOutput opens a read end of the pipes the command writes its output
// to, and keeps them open as long as the helper lives: when the worker
// (their reader) dies, what the command writes during its grace, as
// bash's "Terminated" for a killed child, then lands in the pipe instead
// of killing the writer with SIGPIPE, which would cut its exit trap
// short. Only pipes are held (opening one through /proc gives a new end
// of the same pipe); nothing is ever read.
func holdOutput() {
	for _, fd := range []int{1, 2} {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			continue
		}
		_, _ = unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
}

// restrict applies a read-only or workspace-write boundary to this thread.
func restrict(b Boundary) error {
	if b.Mode != ReadOnly && b.Mode != WorkspaceWrite {
		_, err := ParseMode(string(b.Mode))
		return err
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < minLandlockABI {
		return fmt.Errorf("cannot apply the %s sandbox: Landlock is not available on this kernel (ABI %d, need %d; %v). %s",
			b.Mode, abi, minLandlockABI, err, hint)
	}
	var roots []string
	if b.Mode == WorkspaceWrite {
		for _, r := range b.WritableRoots {
			if st, err := os.Stat(r); err != nil || !st.IsDir() {
				return fmt.Errorf("cannot apply the %s sandbox: writable root %s is not an existing directory", b.Mode, r)
			}
		}
		roots = b.WritableRoots
	}
	flags := unix.CLONE_NEWNS
	if b.Mode == ReadOnly || !b.Network {
		flags |= unix.CLONE_NEWNET
	}
	if err := unix.Unshare(flags); err != nil {
		return fmt.Errorf("cannot apply the %s sandbox: creating mount and network namespaces failed: %w (the worker needs root or CAP_SYS_ADMIN). %s",
			b.Mode, err, hint)
	}
	if err := protect(ProtectedUnder(roots, b.Protected)); err != nil {
		return fmt.Errorf("cannot apply the %s sandbox: %w. %s", b.Mode, err, hint)
	}
	ownProc()
	if flags&unix.CLONE_NEWNET != 0 {
		loopbackUp() // best effort: local servers the command starts itself
	}
	if err := restrictFS(abi, b.Mode, roots); err != nil {
		return fmt.Errorf("cannot apply the %s sandbox: Landlock: %w. %s", b.Mode, err, hint)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("cannot apply the %s sandbox: dropping capabilities: %w. %s", b.Mode, err, hint)
	}
	return nil
}

// ownProc mounts a /proc of the helper's PID namespace, in its (private)
// mount namespace, so the PIDs a command sees ($!, ps) match /proc. Best
// effort: it is no boundary, and a host may forbid a new proc mount (a
// container with masked /proc paths); then /proc stays the host's.
func ownProc() {
	if os.Getpid() != 1 {
		return
	}
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
}

// protect binds each path read-only onto itself, in this (new) mount
// namespace only.
func protect(paths []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("protecting %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("protecting %s (read-only remount): %w", p, err)
		}
	}
	return nil
}

// restrictFS applies the Landlock rules: read and execute anywhere, write
// only under the roots and on the harmless device files.
func restrictFS(abi int, mode Mode, roots []string) error {
	base := []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4,
		landlock.V5, landlock.V6, landlock.V7}[min(abi, maxLandlockABI)]
	cfg := landlock.Config{HandledAccessFS: base.HandledAccessFS, Scoped: base.Scoped}
	handled := cfg.HandledAccessFS
	devRights := landlock.AccessFSSet(ll.AccessFSReadFile|ll.AccessFSWriteFile|ll.AccessFSTruncate|ll.AccessFSIoctlDev) & handled
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.PathAccess(devRights, "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
			"/dev/tty", "/dev/ptmx").IgnoreIfMissing(),
		landlock.PathAccess(devRights|landlock.AccessFSSet(ll.AccessFSReadDir), "/dev/pts").IgnoreIfMissing(),
	}
	if mode == WorkspaceWrite {
		rw := []string{"/dev/shm"}
		rules = append(rules, landlock.RWDirs(rw...).IgnoreIfMissing())
		if len(roots) > 0 {
			rules = append(rules, landlock.RWDirs(roots...).WithRefer())
		}
	}
	return cfg.Restrict(rules...)
}

// dropCapabilities empties the bounding set and this thread's capability
// sets, so the command (even as uid 0) has no privilege left after exec.
func dropCapabilities() error {
	for c := 0; c <= 63; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability of this kernel
		}
		if err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return err
	}
	return nil
}

// loopbackUp brings up lo in the new network namespace.
func loopbackUp() {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return
	}
	if unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr) != nil {
		return
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	_ = unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// Available reports whether this host can enforce the sandbox: Landlock
// recent enough. Namespaces are only known when the helper tries.
func Available() error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < minLandlockABI {
		return fmt.Errorf("landlock ABI %d (need %d): %v", abi, minLandlockABI, err)
	}
	return nil
}
