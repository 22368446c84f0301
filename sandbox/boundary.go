package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Boundary is what one sandboxed command may touch. The workspace host
// builds it (it knows the temp dir and the interpreter home) and
// [Transform] turns it into the arguments of the helper subcommand, which
// enforces it with the kernel ([Enter]).
type Boundary struct {
	Mode Mode
	// WritableRoots are the directories a workspace-write command may
	// write under (absolute; ignored under read-only).
	WritableRoots []string
	// Network lets the command reach the network (workspace-write only).
	Network bool
	// Protected paths stay read-only even under a writable root, besides
	// the `.git` of every writable root: the interpreter home.
	Protected []string
	// ReportFD, when positive, is a file descriptor the helper writes its
	// setup error to (and closes on exec), so the caller can tell "the
	// sandbox could not be applied" from the command's own failure.
	ReportFD int
	// LifelineFD, when positive, is the read end of a pipe whose write end
	// only the worker holds: when it reads end of file the worker is gone,
	// and the helper ends the command (see [Start]).
	LifelineFD int
	// TermGrace, when positive, lets the command end cleanly when it is
	// stopped or its worker dies: the helper sends SIGTERM to every
	// process of the command, so that their exit traps run, and SIGKILLs
	// what is left after TermGrace. Zero kills at once (see [Start]).
	TermGrace time.Duration
}

// HelperCommand is the hidden subcommand that runs a command inside a
// boundary and supervises it: `interpreter sandbox linux --mode M
// [--writable-root DIR]... [--network] [--protect PATH]... [--report-fd N]
// [--lifeline-fd N] [--term-grace DUR] -- CMD ARGS...`.
var HelperCommand = []string{"sandbox", "linux"}

// ErrCommandNotFound means the command to run does not exist.
var ErrCommandNotFound = errors.New("command not found")

// ErrNoPTY means the host cannot give a command a pseudo-terminal.
var ErrNoPTY = errors.New("no pseudo-terminal available on this host")

// ExitSetupFailed is the helper's exit code when it refused to run the
// command because the sandbox could not be applied.
const ExitSetupFailed = 125

// Transform rewrites argv into a re-run of exe (our own binary) through
// the helper subcommand, which applies b, starts argv and stays as its
// supervisor. Under danger-full-access the helper applies no restriction,
// but it still supervises: a command must not outlive its worker in any
// mode.
func Transform(exe string, argv []string, b Boundary) []string {
	out := append([]string{exe}, HelperCommand...)
	out = append(out, "--mode", string(b.Mode))
	if b.Mode == WorkspaceWrite {
		for _, r := range b.WritableRoots {
			out = append(out, "--writable-root", r)
		}
		if b.Network {
			out = append(out, "--network")
		}
	}
	for _, p := range b.Protected {
		out = append(out, "--protect", p)
	}
	if b.ReportFD > 0 {
		out = append(out, "--report-fd", strconv.Itoa(b.ReportFD))
	}
	if b.LifelineFD > 0 {
		out = append(out, "--lifeline-fd", strconv.Itoa(b.LifelineFD))
	}
	if b.TermGrace > 0 {
		out = append(out, "--term-grace", b.TermGrace.String())
	}
	out = append(out, "--")
	return append(out, argv...)
}

// ParseHelperArgs is the inverse of [Transform] for the arguments after
// the subcommand name. Test binaries use it to act as the helper (see
// [RunHelperIfRequested]); the CLI parses the same flags with kong.
func ParseHelperArgs(args []string) (Boundary, []string, error) {
	var b Boundary
	mode := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "--":
			argv := args[i+1:]
			if len(argv) == 0 {
				return b, nil, errors.New("no command after --")
			}
			if b.Mode, err = ParseMode(mode); err != nil {
				return b, nil, err
			}
			return b, argv, nil
		case "--mode":
			mode, err = value()
		case "--writable-root":
			var v string
			v, err = value()
			b.WritableRoots = append(b.WritableRoots, v)
		case "--protect":
			var v string
			v, err = value()
			b.Protected = append(b.Protected, v)
		case "--network":
			b.Network = true
		case "--report-fd":
			var v string
			if v, err = value(); err == nil {
				b.ReportFD, err = strconv.Atoi(v)
			}
		case "--lifeline-fd":
			var v string
			if v, err = value(); err == nil {
				b.LifelineFD, err = strconv.Atoi(v)
			}
		case "--term-grace":
			var v string
			if v, err = value(); err == nil {
				b.TermGrace, err = time.ParseDuration(v)
			}
		default:
			return b, nil, fmt.Errorf("unknown flag %q", a)
		}
		if err != nil {
			return b, nil, err
		}
	}
	return b, nil, errors.New("missing -- before the command")
}

// RunHelperIfRequested makes a test binary act as the helper when it is
// re-executed through [Transform] (os.Args[1:3] are the subcommand): it
// enters the boundary and executes the command, never returning. Call it
// first thing in TestMain of packages whose tests run sandboxed commands
// with the test binary as the executable.
func RunHelperIfRequested() {
	rest, ok := helperArgs(os.Args[1:])
	if !ok {
		return
	}
	b, argv, err := ParseHelperArgs(rest)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interpreter sandbox: %v\n", err)
		os.Exit(2)
	}
	err = Enter(b, argv)
	ExitRefused(b.ReportFD, err)
}

// HelperRequest reports whether args (a program's arguments after its
// name) ask for the helper with arguments [Transform] writes, and if so
// the boundary and the command. Anything else (another subcommand, a
// flag spelled otherwise, a mistake) is left to the CLI to parse and
// judge.
func HelperRequest(args []string) (Boundary, []string, bool) {
	rest, ok := helperArgs(args)
	if !ok {
		return Boundary{}, nil, false
	}
	b, argv, err := ParseHelperArgs(rest)
	return b, argv, err == nil
}

// helperArgs returns what follows the helper's subcommand in args.
func helperArgs(args []string) ([]string, bool) {
	if len(args) < len(HelperCommand) || args[0] != HelperCommand[0] || args[1] != HelperCommand[1] {
		return nil, false
	}
	return args[len(HelperCommand):], true
}

// ExitRefused reports why the helper did not run the command and exits with
// [ExitSetupFailed]: on the report descriptor when there is one, and on
// stderr always. A command that does not exist is not a sandbox failure:
// it exits 127 like a shell, with the message on stderr only.
func ExitRefused(reportFD int, err error) {
	msg := err.Error()
	if errors.Is(err, ErrCommandNotFound) {
		fmt.Fprintf(os.Stderr, "%s\n", msg)
		os.Exit(127)
	}
	if reportFD > 0 {
		f := os.NewFile(uintptr(reportFD), "report")
		_, _ = f.WriteString(msg)
		_ = f.Close()
	}
	fmt.Fprintf(os.Stderr, "interpreter sandbox: %s\n", msg)
	os.Exit(ExitSetupFailed)
}

// WritableRoots lists the directories a workspace-write command may write
// under: the thread's working directory, the temp dirs ($TMPDIR and /tmp)
// and the configured extra roots, absolute, with symlinks resolved and
// without duplicates. A root that does not exist is an error (a typo in
// the configuration should not silently shrink or widen the sandbox).
func WritableRoots(cwd string, extra []string, tmpDirs ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string, must bool) error {
		if p == "" {
			return nil
		}
		if !filepath.IsAbs(p) {
			return fmt.Errorf("writable root %q is not an absolute path", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if !must && errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("writable root %s does not exist or cannot be resolved: %w", p, err)
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			return fmt.Errorf("writable root %s is not a directory", p)
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
		return nil
	}
	if err := add(cwd, true); err != nil {
		return nil, err
	}
	for _, t := range tmpDirs {
		if err := add(t, false); err != nil {
			return nil, err
		}
	}
	for _, e := range extra {
		if err := add(e, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ProtectedUnder lists the paths that must stay read-only under the given
// writable roots: each root's `.git` (a directory, or the file of a git
// worktree), and each extra protected path that lies inside a root. Only
// existing paths are listed: a path that does not exist cannot be bound
// read-only (see docs/sandbox-and-approvals.md for what that means for a `.git` created by
// the command itself).
func ProtectedUnder(roots, extra []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] || !under(real, roots) {
			return
		}
		seen[real] = true
		out = append(out, real)
	}
	for _, r := range roots {
		add(filepath.Join(r, ".git"))
	}
	for _, p := range extra {
		if p != "" {
			add(p)
		}
	}
	return out
}

// under reports whether p is one of dirs or lies beneath one of them.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if Within(p, d) {
			return true
		}
	}
	return false
}

// Within reports whether the cleaned absolute path p is dir or lies
// beneath it.
func Within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// deniedHints are what commands print when the sandbox stops them.
var deniedHints = []string{
	"permission denied", "operation not permitted", "read-only file system",
	"network is unreachable", "could not resolve host", "temporary failure in name resolution",
	"name or service not known", "failed to connect", "connection refused",
}

// LikelyDenied guesses whether a sandboxed command failed because of the
// sandbox: it exited non-zero and said something the sandbox makes
// commands say. The on-failure policy then offers to rerun it unsandboxed.
func LikelyDenied(exitCode int, output string) bool {
	if exitCode == 0 {
		return false
	}
	low := strings.ToLower(output)
	for _, h := range deniedHints {
		if strings.Contains(low, h) {
			return true
		}
	}
	return false
}
