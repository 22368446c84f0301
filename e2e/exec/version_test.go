package exec

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The built binary names its release and the commit it was built from
// (a build from a checkout records it).
func TestVersionNamesTheReleaseAndCommit(t *testing.T) {
	want := regexp.MustCompile(`^interpreter 0\.1\.0 \([0-9a-f]{7}(-dirty)?\)\n$`)
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(e2etest.Binary, arg).Output()
		if err != nil {
			t.Fatalf("interpreter %s: %v", arg, err)
		}
		if !want.Match(out) {
			t.Errorf("interpreter %s printed %q", arg, out)
		}
	}
}
