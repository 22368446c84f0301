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
	"testing"
)

// Binary is the interpreter built once for the end-to-end tests.
var Binary string

// Main is a suite's TestMain: it builds the binary, then runs the tests.
// Suites share nothing on disk or on fixed ports (each test has its own
// temp dirs and free ports), so `go test ./...` may run them side by side
// like any packages (-p, one per core by default).
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
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
