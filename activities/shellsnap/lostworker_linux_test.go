//go:build linux

package shellsnap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// TestMain lets this test binary act as the sandbox helper (captures run
// through it) and as a worker that takes one snapshot (see
// [runCaptureWorkerIfRequested]).
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	runCaptureWorkerIfRequested()
	os.Exit(m.Run())
}

// captureWorkerEnv carries a job for this binary acting as a worker.
const captureWorkerEnv = "INTERPRETER_TEST_CAPTURE_WORKER"

type captureJob struct {
	Home, Dir, Mark string
	NoPIDNamespace  bool
}

// runCaptureWorkerIfRequested makes this test binary a worker that
// prepares one login-shell command, which captures the profile, so a test
// can SIGKILL it in the middle of the profile as a crash would.
func runCaptureWorkerIfRequested() {
	raw := os.Getenv(captureWorkerEnv)
	if raw == "" {
		return
	}
	var job captureJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c := &Cache{Dir: job.Dir, Exe: exe, NoPIDNamespace: job.NoPIDNamespace, Timeout: time.Minute}
	env := []string{"HOME=" + job.Home, "PATH=" + os.Getenv("PATH"), "ORPHAN_MARK=" + job.Mark}
	p := c.Prepare(context.Background(), Request{Argv: []string{"bash", "-lc", "true"}, Dir: job.Home, Env: env})
	fmt.Printf("%+v\n", p)
	os.Exit(0)
}

// rehashProfile is a ~/.bash_profile that runs a pyenv-like rehash: a
// bash script that takes a lock with noclobber, removes it in its EXIT
// trap (and says so), and works a long while holding it. A process that
// ignores SIGTERM runs beside it, which only a kill ends.
const rehashProfile = `cat > "$HOME/rehash" <<'EOF'
set -o noclobber
echo > "$HOME/shims/.pyenv-shim" || exit 1
set +o noclobber
trap 'rm -f "$HOME/shims/.pyenv-shim"; echo released >> "$HOME/released"' EXIT
touch "$HOME/held"
sleep 60
EOF
(trap '' TERM; exec sleep 61) &
bash "$HOME/rehash"
`

// TestLostWorkerLeavesNoProfileLock: a worker SIGKILLed while its capture
// runs a login profile that holds a pyenv-like rehash lock. The profile
// gets SIGTERM, its trap removes the lock, and nothing of the capture is
// left once the grace has passed: with a PID namespace and without.
func TestLostWorkerLeavesNoProfileLock(t *testing.T) {
	for _, noNS := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-pid-namespace=%v", noNS), func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, "shims"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(rehashProfile), 0o644); err != nil {
				t.Fatal(err)
			}
			mark := fmt.Sprintf("%d-lostworker-%v", os.Getpid(), noNS)
			t.Cleanup(func() { killMarked(mark) })
			job, _ := json.Marshal(captureJob{Home: home, Dir: t.TempDir(), Mark: mark, NoPIDNamespace: noNS})
			worker := exec.Command(os.Args[0], "-test.run=^$")
			worker.Env = append(os.Environ(), captureWorkerEnv+"="+string(job))
			var wout bytes.Buffer
			worker.Stdout, worker.Stderr = &wout, &wout
			if err := worker.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = worker.Wait(); close(exited) }()
			lock := filepath.Join(home, "shims", ".pyenv-shim")
			awaitCond(t, 30*time.Second, func() string {
				select {
				case <-exited:
					t.Fatalf("the worker exited before the profile took its lock: %s", wout.String())
				default:
				}
				if _, err := os.Stat(filepath.Join(home, "held")); err != nil {
					return "the profile has not taken its lock"
				}
				return ""
			})
			if _, err := os.Stat(lock); err != nil {
				t.Fatalf("the lock is not there while held: %v", err)
			}
			if n := len(marked(mark)); n < 4 { // helper, login shell, rehash, sleeps
				t.Fatalf("only %d processes of the capture found before the kill", n)
			}
			killed := time.Now()
			if err := worker.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-exited
			awaitCond(t, termGrace, func() string {
				if _, err := os.Stat(lock); err == nil {
					return "the rehash lock is still there"
				}
				return ""
			})
			// The one that ignores SIGTERM is killed at the end of the grace.
			awaitCond(t, termGrace+2*time.Second, func() string {
				if left := marked(mark); len(left) > 0 {
					return fmt.Sprintf("processes of the capture outlived the grace: %s", describe(left))
				}
				return ""
			})
			if b, _ := os.ReadFile(filepath.Join(home, "released")); string(b) != "released\n" {
				t.Errorf("the lock was not removed by its trap (released: %q)", b)
			}
			if took := time.Since(killed); took < termGrace-200*time.Millisecond {
				t.Errorf("the process that ignores SIGTERM was gone after %v, before the grace of %v", took, termGrace)
			}
		})
	}
}

// awaitCond polls cond (a message while it does not hold) for processes
// and files outside this process, which give nothing to block on.
func awaitCond(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := cond()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked lists the live processes (zombies excluded) whose environment
// carries ORPHAN_MARK=mark.
func marked(mark string) []int {
	want := []byte("ORPHAN_MARK=" + mark + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); bytes.Contains(st, []byte(") Z ")) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func describe(pids []int) string {
	var parts []string
	for _, p := range pids {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		parts = append(parts, fmt.Sprintf("%d %q", p, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	}
	return strings.Join(parts, "; ")
}

func killMarked(mark string) {
	for _, p := range marked(mark) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}
