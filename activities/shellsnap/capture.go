package shellsnap

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// bashCapture runs in the login shell after its profile: it prints,
// between markers carrying a nonce only this capture knows ($1), the
// exported variables (NUL-separated, so values may hold newlines) and the
// functions, aliases and options. Whatever the profile printed comes
// before the first marker and is dropped; the script's own errors go to
// /dev/null.
const bashCapture = `exec 2>/dev/null
m=$1
printf '\n%s:env\n' "$m"; command -p env -0
printf '\n%s:funcs\n' "$m"; declare -f
printf '\n%s:aliases\n' "$m"; alias -p
printf '\n%s:shopt\n' "$m"; shopt -p
printf '\n%s:set\n' "$m"; set +o
printf '\n%s:end\n' "$m"
`

// zshCapture is bashCapture for zsh: functions (autoload stubs print as
// such), aliases of every kind, the options set other than by default
// (one name a line: kshoptionprint would print a table),
// fpath (which autoloaded functions are looked up in) and ZDOTDIR, which
// names where the profile files were read from even when not exported.
const zshCapture = `exec 2>/dev/null
m=$1
printf '\n%s:env\n' "$m"; command -p env -0
printf '\n%s:funcs\n' "$m"; functions
printf '\n%s:aliases\n' "$m"; alias -L
printf '\n%s:setopt\n' "$m"; (unsetopt kshoptionprint; setopt); [[ -o kshoptionprint ]] && echo kshoptionprint
printf '\n%s:fpath\n' "$m"; print -r -- "fpath=(${(q)fpath[@]})"
printf '\n%s:zdotdir\n' "$m"; print -r -- "$ZDOTDIR"
printf '\n%s:end\n' "$m"
`

// dashCapture is bashCapture for dash, which can list its exported
// variables and aliases but not its functions.
const dashCapture = `exec 2>/dev/null
m=$1
printf '\n%s:env\n' "$m"; command -p env -0
printf '\n%s:aliases\n' "$m"; alias
printf '\n%s:end\n' "$m"
`

// captureOf is the capture script of a kind of shell and the sections it
// prints after the environment.
func captureOf(k shellKind) (script string, sections []string) {
	switch k {
	case zshShell:
		return zshCapture, []string{"funcs", "aliases", "setopt", "fpath", "zdotdir"}
	case dashShell:
		return dashCapture, []string{"aliases"}
	}
	return bashCapture, []string{"funcs", "aliases", "shopt", "set"}
}

// maxCapture bounds what a capture may print (an nvm profile defines
// about 200 KB of functions).
const maxCapture = 16 << 20

// captured is what a login shell had set up after its profile.
type captured struct {
	env []string // NAME=VALUE, as env(1) printed them
	// sec holds the other sections of the capture script by name: the
	// shell's own listings (funcs, aliases, options), which it reads
	// back as commands.
	sec map[string]string
}

// capturer runs the login shell of one capture.
type capturer struct {
	Exe            string
	NoPIDNamespace bool
	Timeout        time.Duration
}

// termGrace is how long a profile cut off midway (at the timeout, on
// cancel, or because its worker died) has to run its exit traps before
// it is killed: pyenv's rehash lock is removed only by its trap, and
// while it stays every later login shell waits a minute for it.
const termGrace = 2 * time.Second

// errTimeout means the profile did not finish in time.
var errTimeout = errors.New("the login profile did not finish")

// capture runs `SHELL -l -c SCRIPT` (the capture script of k) in dir
// with env, inside b, stdin from /dev/null, bounded by c.Timeout. However
// it is cut off, even by the death of this process, the login shell and
// what it started get SIGTERM and [termGrace] to end.
func (c capturer) capture(ctx context.Context, k shellKind, shell, dir string, env []string, b sandbox.Boundary) (captured, error) {
	b.TermGrace = termGrace
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	mark := "interpreter-snapshot-" + hex.EncodeToString(nonce)
	out := &limited{max: maxCapture}
	script, sections := captureOf(k)
	proc, err := sandbox.Start(sandbox.Spec{Exe: c.Exe, Argv: []string{shell, "-l", "-c", script, shell, mark},
		Boundary: b, Dir: dir, Env: env, Output: out, NoPIDNamespace: c.NoPIDNamespace})
	if err != nil {
		return captured{}, fmt.Errorf("starting %s: %w", shell, err)
	}
	t := time.NewTimer(c.Timeout)
	defer t.Stop()
	select {
	case <-proc.Done():
	case <-t.C:
		proc.Stop()
		return captured{}, fmt.Errorf("%w within %v", errTimeout, c.Timeout)
	case <-ctx.Done():
		proc.Stop()
		return captured{}, ctx.Err()
	}
	setup, werr := proc.Wait()
	switch {
	case setup != "":
		return captured{}, fmt.Errorf("the sandbox could not be applied: %s", setup)
	case out.over:
		return captured{}, fmt.Errorf("the login shell printed more than %d bytes", maxCapture)
	}
	snap, perr := parseCapture(out.bytes(), mark, sections)
	if perr != nil {
		if werr != nil {
			return captured{}, fmt.Errorf("the login shell failed (%v): %w", werr, perr)
		}
		return captured{}, perr
	}
	if k == dashShell && strings.TrimSpace(snap.sec["aliases"]) != "" {
		// A non-login dash reads no file these could be restored from.
		return captured{}, errors.New("it defines aliases, which a non-login sh cannot be given")
	}
	// A profile whose last command failed still set everything up: the
	// markers show the script ran to its end.
	return snap, nil
}

// probe runs `SHELL -c :` with env, as a command with the snapshot would
// run, and tells whether it read the restore script: a zsh whose
// /etc/zsh/zshenv sets ZDOTDIR itself reads the user's .zshenv instead.
func (c capturer) probe(ctx context.Context, shell, dir string, env []string, b sandbox.Boundary) error {
	out := &limited{max: 4096}
	proc, err := sandbox.Start(sandbox.Spec{Exe: c.Exe, Argv: []string{shell, "-c", ":"}, Boundary: b, Dir: dir,
		Env: append(env[:len(env):len(env)], probeVar+"=1"), Output: out, NoPIDNamespace: c.NoPIDNamespace})
	if err != nil {
		return fmt.Errorf("starting %s: %w", shell, err)
	}
	t := time.NewTimer(c.Timeout)
	defer t.Stop()
	select {
	case <-proc.Done():
	case <-t.C:
		proc.Kill()
		<-proc.Done()
		return fmt.Errorf("%s with the snapshot did not start within %v", shell, c.Timeout)
	case <-ctx.Done():
		proc.Kill()
		<-proc.Done()
		return ctx.Err()
	}
	if setup, _ := proc.Wait(); setup != "" {
		return fmt.Errorf("the sandbox could not be applied: %s", setup)
	}
	if !bytes.Contains(out.bytes(), []byte(probeSaid)) {
		return errors.New("a non-login zsh does not read the snapshot from ZDOTDIR (does /etc/zsh/zshenv set ZDOTDIR?)")
	}
	return nil
}

// parseCapture cuts the output of a capture script into its sections:
// env, then those named, then end.
func parseCapture(out []byte, mark string, named []string) (captured, error) {
	names := append(append([]string{"env"}, named...), "end")
	sections := make([]string, len(names))
	at := 0
	for i, n := range names {
		m := []byte("\n" + mark + ":" + n + "\n")
		j := bytes.Index(out[at:], m)
		if j < 0 {
			if i == 0 {
				return captured{}, errors.New("the login shell exited before its profile finished (no snapshot printed)")
			}
			return captured{}, fmt.Errorf("the snapshot output was cut before its %s section", n)
		}
		if i > 0 {
			sections[i-1] = string(out[at : at+j])
		}
		at += j + len(m)
	}
	var env []string
	for _, kv := range strings.Split(sections[0], "\x00") {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
			env = append(env, kv)
		}
	}
	if len(env) == 0 {
		return captured{}, errors.New("the login shell printed no environment")
	}
	sec := map[string]string{}
	for i, n := range named {
		sec[n] = sections[i+1]
	}
	return captured{env: env, sec: sec}, nil
}

// limited keeps up to max bytes and notes whether more came.
type limited struct {
	mu   sync.Mutex
	max  int
	buf  bytes.Buffer
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len()+len(p) > l.max {
		l.over = true
		return len(p), nil
	}
	return l.buf.Write(p)
}

func (l *limited) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Bytes()
}
