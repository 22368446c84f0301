package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// snapshotProfile prints noise on both streams, as pyenv does in a
// sandbox, and sets up a variable, a secret, a PATH entry, an alias and a
// function; it counts its runs in $HOME/runs.
const snapshotProfile = `echo "profile noise on stdout"
echo "pyenv: cannot rehash: noise on stderr" >&2
echo run >> "$HOME/runs"
export SNAP_VAR=from-profile
export SNAP_API_KEY=sekrit
export PATH="$HOME/bin:$PATH"
shopt -s expand_aliases
alias ll='echo aliased'
greet() { echo "hello from $1"; }
`

const snapshotScript = `echo "var=$SNAP_VAR key=${SNAP_API_KEY:-none}"; greet fn; ll; mytool`

const snapshotWant = "var=from-profile key=none\nhello from fn\naliased\nmytool ran\n"

// fakeHome is a home whose .bash_profile is profile, with bin/mytool.
func fakeHome(t *testing.T, profile string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "bin", "mytool"), []byte("#!/bin/sh\necho mytool ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

func runs(t *testing.T, home string) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(home, "runs"))
	return strings.Count(string(b), "run\n")
}

func loginExec(a *Activities, home, call, mode string, cmd ...string) (*ExecOutput, error) {
	if len(cmd) == 0 {
		cmd = []string{"bash", "-lc", snapshotScript}
	}
	return a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: call, Command: cmd, Cwd: home,
		SandboxMode: mode, Env: map[string]string{"HOME": home}, TimeoutMs: 10_000})
}

// TestExecLoginShellRunsWithTheSnapshot: `bash -lc` gives what a login
// shell gives, without the profile's noise, reading the profile once.
func TestExecLoginShellRunsWithTheSnapshot(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	for i, cmd := range [][]string{{"bash", "-lc", snapshotScript}, {"bash", "-l", "-c", snapshotScript},
		{"/bin/bash", "--login", "-c", snapshotScript}} {
		out, err := loginExec(a, home, "c"+string(rune('1'+i)), "danger-full-access", cmd...)
		if err != nil {
			t.Fatal(err)
		}
		if out.Output != snapshotWant || out.ExitCode != 0 || !out.ShellSnapshot {
			t.Fatalf("%q: got %+v", cmd, out)
		}
	}
	// /bin/bash is another shell path: a snapshot of its own.
	if n := runs(t, home); n != 2 {
		t.Errorf("the profile ran %d times for three commands of two shell paths, want 2", n)
	}

	// The same command as a plain login shell prints the same after the
	// noise, but for the secret the profile set: the policy keeps that
	// out of the snapshot.
	b := newActs(t)
	b.NoShellSnapshot = true
	plain, err := loginExec(b, home, "plain", "danger-full-access")
	if err != nil {
		t.Fatal(err)
	}
	if plain.ShellSnapshot || !strings.Contains(plain.Output, "noise on stdout") || !strings.HasSuffix(plain.Output, strings.Replace(snapshotWant, "key=none", "key=sekrit", 1)) {
		t.Errorf("plain login shell: %+v", plain)
	}
}

// TestExecSnapshotIsTakenAgainWhenTheProfileChanges.
func TestExecSnapshotIsTakenAgainWhenTheProfileChanges(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	echo := []string{"bash", "-lc", "echo $SNAP_VAR"}
	for i := range 2 {
		out, err := loginExec(a, home, "c", "danger-full-access", echo...)
		if err != nil || out.Output != "from-profile\n" {
			t.Fatalf("run %d: %+v %v", i, out, err)
		}
	}
	changed := strings.Replace(snapshotProfile, "SNAP_VAR=from-profile", "SNAP_VAR=changed", 1)
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := loginExec(a, home, "c", "danger-full-access", echo...)
	if err != nil || out.Output != "changed\n" {
		t.Fatalf("after the change: %+v %v", out, err)
	}
	// A new ~/.bashrc is a change too (profiles source it).
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loginExec(a, home, "c", "danger-full-access", echo...); err != nil {
		t.Fatal(err)
	}
	if n := runs(t, home); n != 3 {
		t.Errorf("the profile ran %d times, want 3 (first command, each change)", n)
	}
}

// TestExecHangingProfileFallsBackWithOneWarning: a profile that does not
// finish in time is given up on once; commands then run as given (a
// plain login shell), without another warning until it changes.
func TestExecHangingProfileFallsBackWithOneWarning(t *testing.T) {
	a := newActs(t)
	a.ShellSnapshotTimeout = 300 * time.Millisecond
	home := fakeHome(t, `[ -e "$HOME/hang" ] && sleep 60
echo "profile noise on stdout"
export SNAP_VAR=from-profile
`)
	if err := os.WriteFile(filepath.Join(home, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: home, SandboxMode: "danger-full-access",
		Command: []string{"bash", "-lc", "echo $SNAP_VAR"}, Env: map[string]string{"HOME": home}, TimeoutMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || out.ShellSnapshot || !strings.Contains(out.Output, "[shell snapshot: the login profile of bash could not be captured") ||
		!strings.Contains(out.Output, "did not finish within 300ms") {
		t.Fatalf("first command: %+v", out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: the capture was not cut at its timeout", d)
	}
	if err := os.Remove(filepath.Join(home, "hang")); err != nil {
		t.Fatal(err)
	}
	out, err = loginExec(a, home, "c2", "danger-full-access", "bash", "-lc", "echo $SNAP_VAR")
	if err != nil {
		t.Fatal(err)
	}
	if out.ShellSnapshot || out.Output != "profile noise on stdout\nfrom-profile\n" {
		t.Fatalf("second command (plain login shell, no second warning): %+v", out)
	}
}

// TestExecSnapshotTimeoutLetsTheProfileCleanUp: a profile cut off at the
// capture's timeout is stopped with SIGTERM first, so a lock it holds
// with an exit trap (as pyenv's rehash does: a stale one makes every
// later login shell wait 60 s) is removed.
func TestExecSnapshotTimeoutLetsTheProfileCleanUp(t *testing.T) {
	a := newActs(t)
	a.ShellSnapshotTimeout = 300 * time.Millisecond
	home := fakeHome(t, `if [ -e "$HOME/hang" ]; then
  ( set -o noclobber; : > "$HOME/lock" ) || exit 1
  trap 'rm -f "$HOME/lock"' EXIT
  sleep 60 & wait
fi
`)
	if err := os.WriteFile(filepath.Join(home, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: home, SandboxMode: "danger-full-access",
		Command: []string{"bash", "-lc", "echo ran"}, Env: map[string]string{"HOME": home}, TimeoutMs: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Output, "did not finish within 300ms") {
		t.Fatalf("got %+v", out)
	}
	if _, err := os.Stat(filepath.Join(home, "lock")); err == nil {
		t.Fatal("the profile's lock outlived its capture: its exit trap did not run")
	}
}

// TestExecFailingProfileFallsBack: a profile that exits before the
// snapshot is printed is a warning, and the command runs as given.
func TestExecFailingProfileFallsBack(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, "echo leaving; exit 3\n")
	out, err := loginExec(a, home, "c1", "danger-full-access", "bash", "-lc", "echo never")
	if err != nil {
		t.Fatal(err)
	}
	if out.ShellSnapshot || out.ExitCode != 3 || !strings.Contains(out.Output, "exited before its profile finished") {
		t.Fatalf("got %+v", out)
	}
}

// TestExecSnapshotKeepsThePolicy: variables the profile sets go through
// the environment policy like the worker's own.
func TestExecSnapshotKeepsThePolicy(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: home, SandboxMode: "danger-full-access",
		Command: []string{"bash", "-lc", "echo ${SNAP_API_KEY:-none} ${SNAP_VAR:-none}"}, Env: map[string]string{"HOME": home},
		EnvPolicy: &sandbox.EnvPolicy{Allow: []string{"SNAP_API_KEY"}, Exclude: []string{"SNAP_VAR"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != "sekrit none\n" || !out.ShellSnapshot {
		t.Fatalf("got %+v", out)
	}
}

// TestExecSandboxedSnapshotReadsTheProfileReadOnly: a sandboxed command's
// profile is read inside a read-only sandbox, so it can write nothing,
// even where the command could.
func TestExecSandboxedSnapshotReadsTheProfileReadOnly(t *testing.T) {
	requireSandbox(t)
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	out, err := loginExec(a, home, "c1", "workspace-write")
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != snapshotWant || !out.ShellSnapshot || !out.Sandboxed {
		t.Fatalf("got %+v", out)
	}
	if n := runs(t, home); n != 0 {
		t.Errorf("the profile wrote $HOME/runs while being captured (%d runs recorded)", n)
	}
	out, err = loginExec(a, home, "c2", "workspace-write", "bash", "-lc", "echo x > runs2 && cat runs2")
	if err != nil || out.Output != "x\n" {
		t.Fatalf("the command itself may write its workspace: %+v %v", out, err)
	}
}

// TestExecSnapshotDoesNotReachChildShells: the snapshot reaches the
// command's own shell only; a bash the command starts reads the
// profile's BASH_ENV, as under a login shell, and knows none of its
// functions. (The login shell itself reads BASH_ENV after the profile:
// what that prints is noise of the capture.)
func TestExecSnapshotDoesNotReachChildShells(t *testing.T) {
	home := fakeHome(t, `export BASH_ENV="$HOME/benv"
greet() { echo hi; }
`)
	if err := os.WriteFile(filepath.Join(home, "benv"), []byte("echo benv read\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `echo "$BASH_ENV"; greet; bash -c 'type greet >/dev/null 2>&1 || echo no greet'`
	want := home + "/benv\nhi\nbenv read\nno greet\n"
	for _, snap := range []bool{true, false} {
		a := newActs(t)
		a.NoShellSnapshot = !snap
		out, err := loginExec(a, home, "c1", "danger-full-access", "bash", "-lc", script)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if !snap {
			w = "benv read\n" + want
		}
		if out.Output != w || out.ShellSnapshot != snap {
			t.Errorf("snapshot %v: got %+v", snap, out)
		}
	}
}

// TestExecSnapshotScriptIsWrittenAgainWhenChanged: bash runs whatever the
// restore script holds, so a changed one is replaced before it is used.
func TestExecSnapshotScriptIsWrittenAgainWhenChanged(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	if out, err := loginExec(a, home, "c1", "danger-full-access"); err != nil || out.Output != snapshotWant {
		t.Fatalf("%+v %v", out, err)
	}
	scripts, _ := filepath.Glob(filepath.Join(a.Store.Dir(), "shell_snapshots", "*.sh"))
	if len(scripts) != 1 {
		t.Fatalf("restore scripts %q", scripts)
	}
	if err := os.WriteFile(scripts[0], []byte("echo tampered\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := loginExec(a, home, "c2", "danger-full-access"); err != nil || out.Output != snapshotWant {
		t.Fatalf("after the change: %+v %v", out, err)
	}
	if n := runs(t, home); n != 1 {
		t.Errorf("the profile ran %d times, want 1 (the snapshot itself was kept)", n)
	}
}

// TestExecSnapshotIsTakenAgainWhenASourcedFileChanges: a file the
// profile sources (as ~/.cargo/env is) is watched like the profile.
func TestExecSnapshotIsTakenAgainWhenASourcedFileChanges(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, "echo run >> \"$HOME/runs\"\n. \"$HOME/.tool/env\"\n")
	if err := os.Mkdir(filepath.Join(home, ".tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(home, ".tool", "env")
	for i, v := range []string{"one", "one", "two"} {
		if i != 1 {
			if err := os.WriteFile(env, []byte("export TOOL_VAR="+v+strings.Repeat(" ", i)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := loginExec(a, home, "c", "danger-full-access", "bash", "-lc", "echo $TOOL_VAR")
		if err != nil || out.Output != v+"\n" || !out.ShellSnapshot {
			t.Fatalf("run %d: %+v %v", i, out, err)
		}
	}
	if n := runs(t, home); n != 2 {
		t.Errorf("the profile ran %d times, want 2 (first command, the change)", n)
	}
}

// TestSessionLoginShellRunsWithTheSnapshot: an exec_command with login
// (bash -lc) starts its session from the snapshot too, so a session
// sees the profile's setup without its noise, and a second one does not
// run the profile again.
func TestSessionLoginShellRunsWithTheSnapshot(t *testing.T) {
	a := newActs(t)
	home := fakeHome(t, snapshotProfile)
	for i := range 2 {
		in := ExecCommandInput{Exec: ExecInput{ThreadID: "th", CallID: "s" + string(rune('1'+i)), Cwd: home,
			SandboxMode: "danger-full-access", Env: map[string]string{"HOME": home}, Command: []string{"bash", "-lc", snapshotScript}},
			SessionID: 1000 + i, YieldMs: 10_000, MaxTokens: 10_000}
		out, err := a.ExecCommand(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Running || out.ExitCode != 0 || out.Output != snapshotWant {
			t.Fatalf("session %d: %+v", i, out)
		}
	}
	if n := runs(t, home); n != 1 {
		t.Errorf("the profile ran %d times for two login-shell sessions, want 1", n)
	}
}
