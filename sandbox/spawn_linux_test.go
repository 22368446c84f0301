//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// graceScript starts a child that says in its EXIT trap that it ran, one
// in a session of its own that does the same, and one that ignores
// SIGTERM; the first two say when they are up.
const graceScript = `setsid bash -c 'trap "echo trapped > $D/setsid" EXIT; touch $D/up-setsid; sleep 60' &
bash -c 'trap "echo trapped > $D/group" EXIT; touch $D/up-group; sleep 60' &
(trap '' TERM; exec sleep 61) &
wait
`

// TestStopGivesEveryProcessTheGrace: Stop of a command with a TermGrace
// sends SIGTERM to its processes, whose traps run, and kills the one that
// ignores it once the grace is over. In a PID namespace this reaches a
// process in a session of its own too; in the fallback only the helper's
// process group gets SIGTERM (the rest is killed after the grace).
func TestStopGivesEveryProcessTheGrace(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const grace = 700 * time.Millisecond
	for _, noNS := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-pid-namespace=%v", noNS), func(t *testing.T) {
			d := t.TempDir()
			p, err := Start(Spec{Exe: exe, Argv: []string{"sh", "-c", graceScript},
				Boundary: Boundary{Mode: DangerFullAccess, TermGrace: grace},
				Env:      append(os.Environ(), "D="+d), Output: io.Discard, NoPIDNamespace: noNS})
			if err != nil {
				t.Fatal(err)
			}
			if p.Namespaced == noNS && os.Geteuid() == 0 {
				t.Fatalf("namespaced %v with NoPIDNamespace %v", p.Namespaced, noNS)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				_, err1 := os.Stat(filepath.Join(d, "up-group"))
				_, err2 := os.Stat(filepath.Join(d, "up-setsid"))
				if err1 == nil && err2 == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the command's children did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			began := time.Now()
			p.Stop()
			took := time.Since(began)
			if took < grace-100*time.Millisecond || took > grace+stopMargin {
				t.Errorf("Stop took %v, want about the grace of %v (the SIGTERM-ignoring one is killed after it)", took, grace)
			}
			traps := []string{"group"}
			if p.Namespaced {
				traps = append(traps, "setsid")
			}
			for _, name := range traps {
				if b, _ := os.ReadFile(filepath.Join(d, name)); string(b) != "trapped\n" {
					t.Errorf("the %s child's exit trap did not run (%q)", name, b)
				}
			}
		})
	}
}

// TestKillIgnoresTheGrace: Kill of a namespaced command with a TermGrace
// is still immediate.
func TestKillIgnoresTheGrace(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(Spec{Exe: exe, Argv: []string{"sh", "-c", "trap '' TERM; sleep 60"},
		Boundary: Boundary{Mode: DangerFullAccess, TermGrace: time.Minute}, Env: os.Environ(), Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Namespaced {
		t.Skip("no PID namespace here: Kill asks the helper, which takes the grace")
	}
	began := time.Now()
	p.Kill()
	<-p.Done()
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("Kill took %v", took)
	}
}
