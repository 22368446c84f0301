// Package e2etest is what the end-to-end suites under e2e/ share: the
// interpreter binary built once per suite, a test's world (home and
// working directories, a port, a fake model), processes of the binary and
// clients of its front ends.
package e2etest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Binary is the interpreter built once for the end-to-end tests.
var Binary string

// Main is a suite's TestMain: it builds the binary, then runs the tests.
// `go test ./...` runs packages side by side; the suites take turns (a
// lock file in the temp dir), so that at most one of them loads the
// machine with servers, workers and clients at a time, as when they were
// one package.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "interpreter-e2e.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		fmt.Fprintln(os.Stderr, "waiting for the other end-to-end suites:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "interpreter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	Binary = filepath.Join(dir, "interpreter")
	build := exec.Command("go", "build", "-o", Binary, "github.com/interpreter-dev/interpreter/cmd/interpreter")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binary: %v\n", err)
		return 1
	}
	return m.Run()
}
