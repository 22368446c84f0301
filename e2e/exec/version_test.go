package exec

import (
	"debug/buildinfo"
	"fmt"
	"os/exec"
	"testing"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The built binary names its release and the commit it was built from, as
// the build recorded it (vcs.revision, short, "-dirty" for a modified
// tree; "unknown" for a build that recorded none, e.g. outside a git
// checkout or in a git worktree).
func TestVersionNamesTheReleaseAndCommit(t *testing.T) {
	info, err := buildinfo.ReadFile(e2etest.Binary)
	if err != nil {
		t.Fatal(err)
	}
	commit, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value[:min(7, len(s.Value))]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case commit == "":
		commit = "unknown"
	case dirty:
		commit += "-dirty"
	}
	want := fmt.Sprintf("interpreter 0.1.0 (%s)\n", commit)
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(e2etest.Binary, arg).Output()
		if err != nil {
			t.Fatalf("interpreter %s: %v", arg, err)
		}
		if string(out) != want {
			t.Errorf("interpreter %s printed %q, want %q", arg, out, want)
		}
	}
}
