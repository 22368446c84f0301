package activities

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireZsh: CI installs zsh (.ci/run), so there its absence fails.
func requireZsh(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("zsh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("zsh is not installed (CI installs it: .ci/run)")
		}
		t.Skip("zsh is not installed")
	}
}

// zshHome is a home whose zsh startup files are files (name to text),
// with bin/mytool and zfuncs/autofn.
func zshHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := fakeHome(t, "")
	if err := os.Mkdir(filepath.Join(home, "zfuncs"), 0o755); err != nil {
		t.Fatal(err)
	}
	files["zfuncs/autofn"] = "echo autoloaded\n"
	for name, text := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// zshFiles print noise from each file a login zsh reads, and set up a
// variable, a secret, PATH, aliases, a function, an autoloaded one and
// an option in the profile; .zshrc is for interactive shells only.
var zshFiles = map[string]string{
	".zshenv": "echo zshenv read\nZSHENV_LOCAL=1\n",
	".zprofile": `echo "profile noise on stdout"
echo "pyenv: cannot rehash: noise on stderr" >&2
echo run >> "$HOME/runs"
export SNAP_VAR=from-profile
export SNAP_API_KEY=sekrit
export PATH="$HOME/bin:$PATH"
alias ll='echo aliased'
alias -g GG='| tr a-z A-Z'
greet() { echo "hello from $1"; }
setopt extendedglob kshoptionprint
fpath+=("$HOME/zfuncs")
autoload -U autofn
`,
	".zshrc":  "echo zshrc read\nexport ZSHRC_VAR=1\n",
	".zlogin": "echo zlogin read\nexport ZLOGIN_VAR=from-zlogin\n",
}

// zshScript uses all of it, and starts a zsh of its own, which reads the
// user's .zshenv (as under a login shell) and knows no profile function.
const zshScript = `echo "var=$SNAP_VAR key=${SNAP_API_KEY:-none} zl=$ZLOGIN_VAR rc=${ZSHRC_VAR:-none}"; greet fn; ll; echo shout GG
mytool; [[ -o extendedglob && -o kshoptionprint ]] && echo extendedglob; autofn; echo "zdotdir=${ZDOTDIR-unset}"
zsh -c 'echo child ${+functions[greet]} ${ZSHENV_LOCAL:-none}'`

const zshWant = "var=from-profile key=none zl=from-zlogin rc=none\nhello from fn\naliased\nSHOUT\nmytool ran\n" +
	"extendedglob\nautoloaded\nzdotdir=unset\nzshenv read\nchild 0 1\n"

// TestExecLoginZshRunsWithTheSnapshot: `zsh -lc` gives what a login zsh
// gives (the same output as one, but for its noise and the secret),
// reading the profile once.
func TestExecLoginZshRunsWithTheSnapshot(t *testing.T) {
	requireZsh(t)
	a := newActs(t)
	home := zshHome(t, zshFiles)
	for i, cmd := range [][]string{{"zsh", "-lc", zshScript}, {"zsh", "-l", "-c", zshScript},
		{"zsh", "--login", "-c", zshScript}, {"zsh", "-cl", zshScript}} {
		out, err := loginExec(a, home, "c"+string(rune('1'+i)), "danger-full-access", cmd...)
		if err != nil {
			t.Fatal(err)
		}
		if out.Output != zshWant || out.ExitCode != 0 || !out.ShellSnapshot {
			t.Fatalf("%q: got %+v", cmd, out)
		}
	}
	if n := runs(t, home); n != 1 {
		t.Errorf("the profile ran %d times for four commands, want 1", n)
	}

	b := newActs(t)
	b.NoShellSnapshot = true
	plain, err := loginExec(b, home, "plain", "danger-full-access", "zsh", "-lc", zshScript)
	if err != nil {
		t.Fatal(err)
	}
	wantPlain := "zshenv read\nprofile noise on stdout\npyenv: cannot rehash: noise on stderr\nzlogin read\n" +
		strings.Replace(zshWant, "key=none", "key=sekrit", 1)
	if plain.ShellSnapshot || plain.Output != wantPlain {
		t.Errorf("plain login zsh (what the snapshot stands for):\n%s\nwant:\n%s", plain.Output, wantPlain)
	}
}

// TestExecZshSnapshotIsTakenAgainWhenTheProfileChanges, including the
// files of a ZDOTDIR that ~/.zshenv sets (not exported): the command's
// zsh children read ~/.zshenv again and find it.
func TestExecZshSnapshotIsTakenAgainWhenTheProfileChanges(t *testing.T) {
	requireZsh(t)
	a := newActs(t)
	home := zshHome(t, map[string]string{
		".zshenv":        "ZDOTDIR=$HOME/zdot\n",
		"zdot/.zprofile": "echo run >> $HOME/runs\nexport SNAP_VAR=from-zdot\n",
	})
	echo := []string{"zsh", "-lc", `echo $SNAP_VAR ${ZDOTDIR-unset}; zsh -c 'echo child $ZDOTDIR'`}
	want := "from-zdot unset\nchild " + home + "/zdot\n"
	for i := range 2 {
		out, err := loginExec(a, home, "c", "danger-full-access", echo...)
		if err != nil || out.Output != want || !out.ShellSnapshot {
			t.Fatalf("run %d: %+v %v", i, out, err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "zdot", ".zprofile"), []byte("echo run >> $HOME/runs\nexport SNAP_VAR=changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := loginExec(a, home, "c", "danger-full-access", echo...)
	if err != nil || out.Output != strings.Replace(want, "from-zdot", "changed", 1) {
		t.Fatalf("after the change: %+v %v", out, err)
	}
	if err := os.WriteFile(filepath.Join(home, "zdot", ".zlogin"), []byte("# new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loginExec(a, home, "c", "danger-full-access", echo...); err != nil {
		t.Fatal(err)
	}
	if n := runs(t, home); n != 3 {
		t.Errorf("the profile ran %d times, want 3 (first command, each change)", n)
	}
}

// TestExecSandboxedZshSnapshot: a sandboxed command's zsh profile is
// read in a read-only sandbox, and the command's zsh reads the snapshot.
func TestExecSandboxedZshSnapshot(t *testing.T) {
	requireZsh(t)
	requireSandbox(t)
	a := newActs(t)
	home := zshHome(t, zshFiles)
	out, err := loginExec(a, home, "c1", "workspace-write", "zsh", "-lc", zshScript)
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != zshWant || !out.ShellSnapshot || !out.Sandboxed {
		t.Fatalf("got %+v", out)
	}
	if n := runs(t, home); n != 0 {
		t.Errorf("the profile wrote $HOME/runs while being captured (%d runs recorded)", n)
	}
}

// TestExecFailingZshProfileFallsBack: a zsh profile that exits early is
// a warning, and the command runs as given.
func TestExecFailingZshProfileFallsBack(t *testing.T) {
	requireZsh(t)
	a := newActs(t)
	home := zshHome(t, map[string]string{".zprofile": "echo leaving; exit 3\n"})
	out, err := loginExec(a, home, "c1", "danger-full-access", "zsh", "-lc", "echo never")
	if err != nil {
		t.Fatal(err)
	}
	if out.ShellSnapshot || out.ExitCode != 3 || !strings.Contains(out.Output, "login profile of zsh could not be captured") {
		t.Fatalf("got %+v", out)
	}
}

// BenchmarkExecLoginZsh times `zsh -lc "echo step"` at the activity,
// with and without the snapshot, for a ~/.zprofile that runs pyenv's
// init when this host has pyenv in /root/.pyenv (as the README's
// figures were measured) and only sets a variable otherwise.
func BenchmarkExecLoginZsh(b *testing.B) {
	if _, err := exec.LookPath("zsh"); err != nil {
		b.Skip("zsh is not installed")
	}
	home := b.TempDir()
	profile := `export SNAP_VAR=1
if [ -x /root/.pyenv/bin/pyenv ]; then export PYENV_ROOT=/root/.pyenv PATH="/root/.pyenv/bin:$PATH"; eval "$(pyenv init - zsh)"; fi
`
	if err := os.WriteFile(filepath.Join(home, ".zprofile"), []byte(profile), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, snap := range []bool{true, false} {
		b.Run(map[bool]string{true: "snapshot", false: "no-snapshot"}[snap], func(b *testing.B) {
			a := newActs(b)
			a.NoShellSnapshot = !snap
			if _, err := loginExec(a, home, "warm", "danger-full-access", "zsh", "-lc", "true"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				out, err := loginExec(a, home, "step", "danger-full-access", "zsh", "-lc", "echo step")
				if err != nil || out.Output != "step\n" || out.ShellSnapshot != snap {
					b.Fatalf("%+v %v", out, err)
				}
			}
		})
	}
}

// TestExecZshThatIgnoresTheSnapshotFallsBack: a zsh that does not read
// the snapshot's ZDOTDIR (here a wrapper setting ZDOTDIR, as a
// /etc/zsh/zshenv may) is found out once, before any command runs with
// half a snapshot: it runs as given, with one warning.
func TestExecZshThatIgnoresTheSnapshotFallsBack(t *testing.T) {
	requireZsh(t)
	real, err := exec.LookPath("zsh")
	if err != nil {
		t.Fatal(err)
	}
	home := zshHome(t, map[string]string{".zprofile": "echo run >> $HOME/runs\ngreet() { echo hello }\n"})
	wrapper := filepath.Join(t.TempDir(), "zsh")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nZDOTDIR=\"$HOME\" exec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := newActs(t)
	out, err := loginExec(a, home, "c1", "danger-full-access", wrapper, "-lc", "greet")
	if err != nil {
		t.Fatal(err)
	}
	if out.ShellSnapshot || !strings.HasPrefix(out.Output, "hello\n") || !strings.Contains(out.Output, "does not read the snapshot from ZDOTDIR") {
		t.Fatalf("got %+v", out)
	}
	out, err = loginExec(a, home, "c2", "danger-full-access", wrapper, "-lc", "greet")
	if err != nil || out.ShellSnapshot || out.Output != "hello\n" {
		t.Fatalf("second command (plain login shell, no second warning): %+v %v", out, err)
	}
	if n := runs(t, home); n != 3 {
		t.Errorf("the profile ran %d times, want 3 (the capture, then each command)", n)
	}
}
