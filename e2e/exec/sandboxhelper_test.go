package exec

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// Every sandboxed command re-executes the binary as its helper. The helper
// must start before the Temporal server, the provider SDKs and the front
// ends run their package initializers (tens of milliseconds a command),
// and still behave as the CLI's `sandbox linux` does: run the command and
// exit with its status. Arguments the fast path does not recognize go to
// the CLI, which judges them.
func TestSandboxHelperStartsBeforeTheRestInitializes(t *testing.T) {
	cmd := exec.Command(e2etest.Binary, "sandbox", "linux", "--mode", "danger-full-access", "--", "sh", "-c", "echo inside; exit 3")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("helper: %v (want exit 3); stderr:\n%.2000s", err, stderr.String())
	}
	if stdout.String() != "inside\n" {
		t.Errorf("command printed %q", stdout.String())
	}
	trace := stderr.String()
	const ours = "init github.com/interpreter-dev/interpreter/"
	if !strings.Contains(trace, ours+"sandbox @") {
		t.Fatalf("no init trace of the sandbox package; stderr:\n%.2000s", trace)
	}
	// The whole binary's initializers, as any other subcommand runs them.
	version := exec.Command(e2etest.Binary, "--version")
	version.Env = cmd.Env
	full, err := version.CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	inits, all := strings.Count(trace, "\ninit ")+1, strings.Count(string(full), "\ninit ")+1
	if inits*2 > all {
		t.Errorf("the helper initialized %d packages of the binary's %d before running the command", inits, all)
	}
	for _, heavy := range []string{"init go.temporal.io/server/service/", "init go.temporal.io/server/temporal @",
		ours + "frontend/", ours + "workflows @"} {
		if strings.Contains(trace, heavy) {
			t.Errorf("the helper ran %s… before the command", heavy)
		}
	}

	// A spelling only the CLI accepts.
	out, err := exec.Command(e2etest.Binary, "sandbox", "linux", "--mode=danger-full-access", "--", "true").CombinedOutput()
	if err != nil {
		t.Errorf("--mode=…: %v\n%s", err, out)
	}
}
