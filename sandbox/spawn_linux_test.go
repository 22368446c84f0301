//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// startShell runs script through Start under danger-full-access and
// returns the process and its output.
func startShell(t *testing.T, script string, noNS bool) (*Process, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p, err := Start(Spec{Exe: exe, Argv: []string{"sh", "-c", script}, Boundary: Boundary{Mode: DangerFullAccess},
		Env: os.Environ(), Output: &out, NoPIDNamespace: noNS})
	if err != nil {
		t.Fatal(err)
	}
	setup, err := p.Wait()
	if setup != "" {
		t.Fatalf("setup failed: %s", setup)
	}
	_ = err // the exit status is the tests' to judge
	return p, out.String()
}

// TestStartPutsTheHelperInAPIDNamespace: under danger-full-access the
// command itself is init (PID 1) of a namespace of its own (nothing to
// restrict, so no helper); as root this must hold, other users get it
// where user namespaces are allowed.
func TestStartPutsTheHelperInAPIDNamespace(t *testing.T) {
	p, out := startShell(t, "echo $$", false)
	if !p.Namespaced {
		if os.Geteuid() == 0 {
			t.Fatal("root got no PID namespace")
		}
		t.Skip("no user namespaces here: the fallback applies")
	}
	if strings.TrimSpace(out) != "1" {
		t.Errorf("the command's PID in its namespace is %q, want 1", out)
	}
	p, out = startShell(t, "echo $PPID", true)
	if p.Namespaced || strings.TrimSpace(out) == "1" {
		t.Errorf("NoPIDNamespace still namespaced the command (parent %q)", out)
	}
}

// TestHelperReportsTheCommandsStatus: the exit code passes through, and a
// command killed by a signal exits 128 + the signal, as in a shell. (A
// command that is init of its namespace cannot signal itself to death,
// as init anywhere: the signal is sent from a process it starts.)
func TestHelperReportsTheCommandsStatus(t *testing.T) {
	for _, noNS := range []bool{false, true} {
		p, _ := startShell(t, "exit 7", noNS)
		if code := p.cmd.ProcessState.ExitCode(); code != 7 {
			t.Errorf("exit 7 came back as %d (no namespace: %v)", code, noNS)
		}
		p, _ = startShell(t, `sh -c 'kill -TERM $$'; exit $?`, noNS)
		if code := p.cmd.ProcessState.ExitCode(); code != 128+15 {
			t.Errorf("SIGTERM came back as %d (no namespace: %v)", code, noNS)
		}
	}
}
