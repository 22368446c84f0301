package activities

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dashProfile is a ~/.profile as dash reads it for `sh -lc`.
const dashProfile = `echo "profile noise on stdout"
echo "noise on stderr" >&2
echo run >> "$HOME/runs"
export SNAP_VAR=from-profile
export SNAP_API_KEY=sekrit
export PATH="$HOME/bin:$PATH"
`

func dashHome(t *testing.T, profile string) string {
	t.Helper()
	if _, err := exec.LookPath("dash"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("dash is not installed")
		}
		t.Skip("dash is not installed")
	}
	home := fakeHome(t, "")
	if err := os.Remove(filepath.Join(home, ".bash_profile")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestExecLoginDashRunsWithTheSnapshotsEnvironment: `dash -lc` (and
// `sh -lc` where sh is dash) gets the exported variables of its profile,
// without its noise, reading it once.
func TestExecLoginDashRunsWithTheSnapshotsEnvironment(t *testing.T) {
	home := dashHome(t, dashProfile)
	a := newActs(t)
	script := `echo "var=$SNAP_VAR key=${SNAP_API_KEY:-none}"; mytool`
	cmds := [][]string{{"dash", "-lc", script}, {"dash", "-l", "-c", script}}
	if p, err := exec.LookPath("sh"); err == nil {
		if real, _ := filepath.EvalSymlinks(p); filepath.Base(real) == "dash" {
			cmds = append(cmds, []string{"sh", "-lc", script})
		}
	}
	for i, cmd := range cmds {
		out, err := loginExec(a, home, "c"+string(rune('1'+i)), "danger-full-access", cmd...)
		if err != nil {
			t.Fatal(err)
		}
		if out.Output != "var=from-profile key=none\nmytool ran\n" || !out.ShellSnapshot {
			t.Fatalf("%q: got %+v", cmd, out)
		}
	}
	want := 1 // dash; and sh, a snapshot of its own
	if len(cmds) == 3 {
		want = 2
	}
	if n := runs(t, home); n != want {
		t.Errorf("the profile ran %d times, want %d (one per shell name)", n, want)
	}
}

// TestExecDashProfileWithAliasesFallsBack: a non-login dash reads no
// file an alias could be restored from, so such a profile is given up on
// with one warning and read by each command.
func TestExecDashProfileWithAliasesFallsBack(t *testing.T) {
	home := dashHome(t, dashProfile+"alias ll='echo aliased'\n")
	a := newActs(t)
	out, err := loginExec(a, home, "c1", "danger-full-access", "dash", "-lc", "ll")
	if err != nil {
		t.Fatal(err)
	}
	if out.ShellSnapshot || !strings.HasPrefix(out.Output, "profile noise on stdout\nnoise on stderr\naliased\n") ||
		!strings.Contains(out.Output, "defines aliases, which a non-login sh cannot be given") {
		t.Fatalf("got %+v", out)
	}
	out, err = loginExec(a, home, "c2", "danger-full-access", "dash", "-lc", "ll")
	if err != nil || out.ShellSnapshot || out.Output != "profile noise on stdout\nnoise on stderr\naliased\n" {
		t.Fatalf("second command (plain login shell, no second warning): %+v %v", out, err)
	}
}
