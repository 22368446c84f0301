package devtest

import (
	"os"
	"testing"

	"github.com/interpreter-dev/interpreter/sandbox"
	_ "github.com/interpreter-dev/interpreter/sandbox/early" // the helper starts before the rest initializes, as in the binary
)

// TestMain lets the test binary act as the sandbox helper: the workers
// these tests run in-process re-execute it to start commands (a shell
// snapshot's capture always goes through the helper).
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	os.Exit(m.Run())
}
