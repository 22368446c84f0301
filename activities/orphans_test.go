package activities

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
)

// workerEnv carries a job for this test binary acting as a worker that
// runs one command (see [runWorkerIfRequested]).
const workerEnv = "INTERPRETER_TEST_EXEC_WORKER"

type workerJob struct {
	Store          string    `json:"store"`
	Input          ExecInput `json:"input"`
	NoPIDNamespace bool      `json:"no_pid_namespace"`
}

// runWorkerIfRequested makes this test binary a worker that runs one
// command with Exec and exits, so a test can SIGKILL the worker while its
// command runs, as a crash would.
func runWorkerIfRequested() {
	raw := os.Getenv(workerEnv)
	if raw == "" {
		return
	}
	var job workerJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	a, err := New(job.Store)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	a.noPIDNamespace = job.NoPIDNamespace
	out, err := a.Exec(context.Background(), job.Input)
	fmt.Printf("%+v %v\n", out, err)
	os.Exit(0)
}

// escapes starts processes every way a command can try to outlive its
// parent: in the background, in a new session, double-forked, under
// nohup, and as a daemon with its output closed. Each says when it runs.
const escapes = `
sleep 30 &
sh -c 'echo up-bg; exec sleep 31' &
setsid sh -c 'echo up-setsid; exec sleep 32' &
(sh -c 'echo up-double; exec sleep 33' &) &
nohup sh -c 'echo up-nohup; exec sleep 34' &
setsid sh -c 'echo up-daemon; exec sleep 300 </dev/null >/dev/null 2>&1' &
echo up-main
wait
sleep 36
`

// TestCommandDiesWithItsWorker: SIGKILL the worker while a command runs
// that spawned processes every way it can; none of them may survive, in
// any sandbox mode, with a PID namespace or (the fallback) without one.
func TestCommandDiesWithItsWorker(t *testing.T) {
	for _, tc := range []struct {
		mode string
		noNS bool
	}{
		{"read-only", false}, {"workspace-write", false}, {"danger-full-access", false},
		{"workspace-write", true}, {"danger-full-access", true},
	} {
		name := tc.mode
		if tc.noNS {
			name += "/no-pid-namespace"
		}
		t.Run(name, func(t *testing.T) {
			if tc.mode != "danger-full-access" {
				requireSandbox(t)
			}
			mark := fmt.Sprintf("%d-%s", os.Getpid(), strings.ReplaceAll(name, "/", "-"))
			store := t.TempDir()
			in := ExecInput{ThreadID: "th", CallID: "c1", Cwd: t.TempDir(), SandboxMode: tc.mode,
				Env: map[string]string{"ORPHAN_MARK": mark}, Command: sh(escapes)}
			job, _ := json.Marshal(workerJob{Store: store, Input: in, NoPIDNamespace: tc.noNS})
			worker := exec.Command(os.Args[0], "-test.run=^$")
			worker.Env = append(os.Environ(), workerEnv+"="+string(job))
			var wout bytes.Buffer
			worker.Stdout, worker.Stderr = &wout, &wout
			if err := worker.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = worker.Wait(); close(exited) }()
			t.Cleanup(func() {
				if os.Getenv("KEEP_ORPHANS") == "" {
					killMarked(mark)
				}
			})
			log := filepath.Join(store, "outputs", "th", "c1.log")
			awaitCond(t, 30*time.Second, func() string {
				b, _ := os.ReadFile(log)
				select {
				case <-exited:
					t.Fatalf("the worker exited before the command was up: %q (output %q)", wout.String(), b)
				default:
				}
				for _, up := range []string{"up-main", "up-bg", "up-setsid", "up-double", "up-nohup", "up-daemon"} {
					if !strings.Contains(string(b), up) {
						return fmt.Sprintf("%s has not started (output %q, worker %q)", up, b, wout.String())
					}
				}
				return ""
			})
			if n := len(marked(mark)); n < 7 {
				t.Fatalf("only %d processes of the command found before the kill; the test would prove nothing", n)
			}
			if err := worker.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-exited
			awaitCond(t, 10*time.Second, func() string {
				if left := marked(mark); len(left) > 0 {
					return fmt.Sprintf("processes of the command outlived its worker: %s", describe(left))
				}
				return ""
			})
		})
	}
}

// awaitCond polls cond, which says what is still wrong ("" when nothing
// is), until it holds or the timeout passes: processes in other
// namespaces give nothing to block on.
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
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", p))
		parts = append(parts, fmt.Sprintf("%d %q [%s %s]", p, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), st, wchan))
	}
	return strings.Join(parts, "; ")
}

// killMarked cleans up after a failed run, so survivors do not linger.
func killMarked(mark string) {
	for _, p := range marked(mark) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// TestCancelEndsEveryProcess: an interrupted turn cancels the activity;
// every process of the command ends with it, not only its process group.
func TestCancelEndsEveryProcess(t *testing.T) {
	for _, noNS := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-pid-namespace=%v", noNS), func(t *testing.T) {
			a := newActs(t)
			a.noPIDNamespace = noNS
			mark := fmt.Sprintf("%d-cancel-%v", os.Getpid(), noNS)
			t.Cleanup(func() { killMarked(mark) })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := filepath.Join(a.Store.Dir(), "outputs", "th", "c1.log")
			go func() {
				for ctx.Err() == nil {
					if b, _ := os.ReadFile(log); strings.Contains(string(b), "up-daemon") && strings.Contains(string(b), "up-main") {
						cancel()
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
			began := time.Now()
			_, err := a.Exec(ctx, ExecInput{ThreadID: "th", CallID: "c1", Cwd: t.TempDir(), SandboxMode: "danger-full-access",
				Env: map[string]string{"ORPHAN_MARK": mark}, Command: sh(escapes)})
			if err == nil {
				t.Fatal("a cancelled command returned no error")
			}
			// Exec returns once the helper is reaped, and the helper goes
			// last: nothing of the command may be left by then.
			if left := marked(mark); len(left) > 0 {
				t.Fatalf("processes of the cancelled command remain: %s", describe(left))
			}
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("the cancelled command took %s to end", d)
			}
		})
	}
}
