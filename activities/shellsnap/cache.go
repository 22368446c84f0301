package shellsnap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// DefaultTimeout bounds one capture: a profile that takes longer is
// taken to hang.
const DefaultTimeout = 5 * time.Second

// maxEntries bounds the snapshots kept (one per shell, workspace and
// environment, in practice a handful per host).
const maxEntries = 32

// Cache holds the snapshots a workspace host's worker took. Its zero
// value needs Dir and Exe; it is safe for concurrent use.
type Cache struct {
	// Dir holds the restore scripts (bash reads them by path).
	Dir string
	// Exe is our own binary, the sandbox helper a capture runs through.
	Exe string
	// NoPIDNamespace starts captures as on a host without PID namespaces.
	NoPIDNamespace bool
	// Timeout bounds a capture; 0 means [DefaultTimeout].
	Timeout time.Duration
	// Disabled runs every command as given.
	Disabled bool

	mu      sync.Mutex
	entries map[string]*entry
}

// Request is one command about to run.
type Request struct {
	// Argv is the command as asked for (`bash -lc CMD`, see [ParseLogin]).
	Argv []string
	// Dir is the workspace directory, where the profile is read.
	Dir string
	// Env is the command's environment, already filtered by Policy.
	Env []string
	// Policy filters the variables the profile sets, as it did Env.
	Policy sandbox.EnvPolicy
	// Confined says the command runs inside the sandbox: the profile is
	// then read inside a read-only one without network, so that it can
	// change nothing (a profile the command may have written must not
	// run with more rights than the command).
	Confined bool
}

// Prepared is what to run instead.
type Prepared struct {
	Argv []string
	Env  []string
	// Applied tells that a snapshot replaced the login shell.
	Applied bool
	// Warning says, once per failed capture, why the login shell runs as
	// given (its profile failed, hung or printed no snapshot).
	Warning string
}

// entry is the snapshot of one key, taken or failed at stamps.
type entry struct {
	mu     sync.Mutex
	taken  bool
	stamps string
	snap   *captured // nil: the capture failed
	script string    // the restore script's path
	text   string    // and its content
	// zdotdir is the ZDOTDIR a login zsh's profile set: its files are
	// watched too.
	zdotdir string
	// sourced are the files the profile files source (see
	// [sourcedFiles]), also watched.
	sourced []string
	// probed: a zsh was seen to read the restore script.
	probed bool
	used   time.Time
}

// Prepare returns the command to run for r: a login bash, zsh or dash as
// the non-login `bash -c CMD` (`zsh -c`, `sh -c`) with the snapshot
// applied, or r as given when it asks for no login shell, snapshots are
// off, or the profile could not be captured (then Warning says why,
// once). The snapshot is taken on the first such
// command and again when a profile file changes.
func (c *Cache) Prepare(ctx context.Context, r Request) Prepared {
	asGiven := Prepared{Argv: r.Argv, Env: r.Env}
	login, ok := ParseLogin(r.Argv)
	if !ok || c.Disabled {
		return asGiven
	}
	k := kindOf(login.Shell)
	e := c.entry(key(login.Shell, r))
	home, envZdot := homeOf(r.Env), lookup(r.Env, "ZDOTDIR")
	e.mu.Lock()
	defer e.mu.Unlock()
	base := profileStamps(profileFiles(k, home, []string{envZdot, e.zdotdir}))
	stamps := base + profileStamps(e.sourced)
	if !e.taken || e.stamps != stamps {
		e.taken, e.stamps, e.snap, e.script, e.text, e.probed = true, stamps, nil, "", "", false
		snap, err := c.capturer().capture(ctx, k, login.Shell, r.Dir, r.Env, captureBoundary(r.Confined))
		if err != nil {
			if ctx.Err() != nil {
				e.taken = false // not the profile's fault: try again next time
				return asGiven
			}
			asGiven.Warning = fmt.Sprintf("shell snapshot: the login profile of %s could not be captured (%v); "+
				"login-shell commands read it on every run until a profile file changes", login.Shell, err)
			return asGiven
		}
		e.snap = &snap
		// The files found by this capture are stamped after it: a change
		// to one while it ran is missed (not to the profile files).
		if z := strings.TrimSpace(snap.sec["zdotdir"]); k == zshShell && z != e.zdotdir {
			e.zdotdir = z
			base = profileStamps(profileFiles(k, home, []string{envZdot, z}))
		}
		e.sourced = sourcedFiles(profileFiles(k, home, []string{envZdot, e.zdotdir}), snap.env, home)
		e.stamps = base + profileStamps(e.sourced)
	}
	if e.snap == nil {
		return asGiven
	}
	if k == dashShell {
		return Prepared{Argv: login.nonLogin(), Env: commandEnv(k, *e.snap, r.Env, r.Policy, ""), Applied: true}
	}
	if err := c.writeScript(k, e); err != nil {
		asGiven.Warning = "shell snapshot: " + err.Error()
		return asGiven
	}
	env := commandEnv(k, *e.snap, r.Env, r.Policy, e.script)
	if k == zshShell && !e.probed {
		if err := c.capturer().probe(ctx, login.Shell, r.Dir, env, captureBoundary(r.Confined)); err != nil {
			if ctx.Err() != nil {
				e.taken = false
				return asGiven
			}
			e.snap = nil
			asGiven.Warning = fmt.Sprintf("shell snapshot: %v; login-shell commands of %s read the profile on every run until a profile file changes", err, login.Shell)
			return asGiven
		}
		e.probed = true
	}
	return Prepared{Argv: login.nonLogin(), Env: env, Applied: true}
}

func (c *Cache) capturer() capturer {
	t := c.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return capturer{Exe: c.Exe, NoPIDNamespace: c.NoPIDNamespace, Timeout: t}
}

func captureBoundary(confined bool) sandbox.Boundary {
	if confined {
		return sandbox.Boundary{Mode: sandbox.ReadOnly}
	}
	return sandbox.Boundary{Mode: sandbox.DangerFullAccess}
}

// entry finds or adds the entry of k, dropping the least recently used
// one when the cache is full.
func (c *Cache) entry(k string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*entry{}
	}
	e, ok := c.entries[k]
	if !ok {
		if len(c.entries) >= maxEntries {
			oldest := ""
			for k, e := range c.entries {
				if oldest == "" || e.used.Before(c.entries[oldest].used) {
					oldest = k
				}
			}
			delete(c.entries, oldest)
		}
		e = &entry{}
		c.entries[k] = e
	}
	e.used = time.Now()
	return e
}

// writeScript makes sure e's restore script is on disk as written: it is
// named by its content, and written again if anything changed it (the
// shell runs whatever it holds, so it is read back, not only stat'ed).
// bash's is HASH.sh; zsh's is the .zshenv of a directory HASH.zsh.
func (c *Cache) writeScript(k shellKind, e *entry) error {
	if e.text == "" {
		e.text = restoreScriptOf(k, *e.snap)
	}
	text := e.text
	if e.script != "" {
		if b, err := os.ReadFile(e.script); err == nil && string(b) == text {
			return nil
		}
	}
	sum := sha256.Sum256([]byte(text))
	name := hex.EncodeToString(sum[:16])
	dir, p := c.Dir, filepath.Join(c.Dir, name+".sh")
	if k == zshShell {
		dir = filepath.Join(c.Dir, name+".zsh")
		p = filepath.Join(dir, ".zshenv")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the snapshot dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the snapshot: %w", err)
	}
	_, werr := tmp.WriteString(text)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing the snapshot: %w", werr)
	}
	e.script = p
	return nil
}

// key names a snapshot: the same shell, read in the same directory with
// the same environment and boundary, sets up the same state.
func key(shell string, r Request) string {
	env := slices.Clone(r.Env)
	slices.Sort(env)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%s", shell, r.Dir, r.Confined, strings.Join(env, "\x00"))
	return hex.EncodeToString(h.Sum(nil))
}

func homeOf(env []string) string {
	if h := lookup(env, "HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// lookup is the last value of name in env, "" if none.
func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
