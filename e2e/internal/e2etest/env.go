package e2etest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// SyncBuffer is a bytes.Buffer safe for a process writer and a test reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Proc is a running interpreter process.
type Proc struct {
	T      *testing.T
	Cmd    *exec.Cmd
	Stdout *SyncBuffer
	Stderr *SyncBuffer
	Done   chan struct{}
	Err    error
}

// Env is one test's world: a home directory, a fake model, a port.
type Env struct {
	T     *testing.T
	Home  string
	Work  string
	Port  int
	Model *fakemodel.Running
}

// NewEnv is a world of its own for t: two temp dirs, a free port and a
// fake model serving script.
func NewEnv(t *testing.T, script *fakemodel.Script) *Env {
	t.Helper()
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	m, err := fakemodel.Start("127.0.0.1:0", script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	e := &Env{T: t, Home: t.TempDir(), Work: t.TempDir(), Port: port, Model: m}
	return e
}

// Config are the -c flags that point a command at this env.
func (e *Env) Config() []string {
	return []string{
		"-c", fmt.Sprintf("temporal.address=127.0.0.1:%d", e.Port),
		"-c", "model_provider=fake",
		"-c", fmt.Sprintf("model_providers.fake={name=\"fake\", base_url=%q, wire_api=\"responses\"}", e.Model.URL()),
		"-c", "model=fake-model",
	}
}

// Start runs the binary with args in this env's home and working directory.
func (e *Env) Start(args ...string) *Proc {
	e.T.Helper()
	return e.StartWith(nil, args...)
}

// StartWith is Start with more environment variables.
func (e *Env) StartWith(environ []string, args ...string) *Proc {
	e.T.Helper()
	p := &Proc{T: e.T, Cmd: exec.Command(Binary, args...), Stdout: &SyncBuffer{}, Stderr: &SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = e.Work
	p.Cmd.Env = append(append(os.Environ(), "INTERPRETER_HOME="+e.Home, "OPENAI_API_KEY="), environ...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	p.Cmd.Stdin = strings.NewReader("")
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() { p.Err = p.Cmd.Wait(); close(p.Done) }()
	e.T.Cleanup(func() { p.Kill() })
	return p
}

// StartDev runs `interpreter dev` and waits until it is ready.
func (e *Env) StartDev() *Proc {
	e.T.Helper()
	p := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port)}, e.Config()...)...)
	p.WaitFor(func() bool { return strings.Contains(p.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	return p
}

// Exec runs `interpreter exec` against the running dev server.
func (e *Env) Exec(args ...string) *Proc {
	all := append([]string{"exec"}, e.Config()...)
	all = append(all, "-c", "temporal.embedded=false")
	return e.Start(append(all, args...)...)
}

// Kill SIGKILLs the process and waits for it to be reaped.
func (p *Proc) Kill() {
	if p.Cmd.Process != nil {
		_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.Done
}

// Wait waits for the process to exit (failing the test after timeout) and
// returns its exit code.
func (p *Proc) Wait(timeout time.Duration) int {
	p.T.Helper()
	select {
	case <-p.Done:
	case <-time.After(timeout):
		p.T.Fatalf("process %v did not finish in %s\nstdout:\n%s\nstderr:\n%s", p.Cmd.Args, timeout, p.Stdout, p.Stderr)
	}
	return p.Cmd.ProcessState.ExitCode()
}

// WaitFor polls a condition about the world outside the test (a process's
// output, a file, the fake model's log): there is nothing to block on.
func (p *Proc) WaitFor(cond func() bool, timeout time.Duration, what string) {
	p.T.Helper()
	exited := false
	WaitUntil(p.T, func() bool {
		select {
		case <-p.Done:
			exited = true
			return true
		default:
			return cond()
		}
	}, timeout, what, func() string {
		return fmt.Sprintf("stdout:\n%s\nstderr:\n%s", p.Stdout, p.Stderr)
	})
	if exited && !cond() {
		p.T.Fatalf("process %v exited while waiting for %s\nstdout:\n%s\nstderr:\n%s", p.Cmd.Args, what, p.Stdout, p.Stderr)
	}
}

// WaitUntil polls cond until it holds, failing t after timeout with what
// and diag().
func WaitUntil(t *testing.T, cond func() bool, timeout time.Duration, what string, diag func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, diag())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// JSONLines parses `exec --json` output lines.
func JSONLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		evs = append(evs, m)
	}
	return evs
}

// Piped is the built binary started with args in e's home and working
// directory, stdin a pipe, each stdout line handed to line (on one
// goroutine, in order) and closed called when stdout ends (nil: nothing).
// done is closed once the process has then been reaped; kill SIGKILLs it
// and waits for that.
type Piped struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stderr *SyncBuffer
	Done   chan struct{}
}

// StartPiped starts a [Piped] process of the binary.
func (e *Env) StartPiped(args []string, line func([]byte), closed func()) *Piped {
	e.T.Helper()
	p := &Piped{Cmd: exec.Command(Binary, args...), Stderr: &SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = e.Work
	p.Cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.Home, "OPENAI_API_KEY=")
	p.Cmd.Stderr = p.Stderr
	var err error
	if p.Stdin, err = p.Cmd.StdinPipe(); err != nil {
		e.T.Fatal(err)
	}
	out, err := p.Cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line(sc.Bytes())
		}
		if closed != nil {
			closed()
		}
		_ = p.Cmd.Wait()
		close(p.Done)
	}()
	e.T.Cleanup(p.Kill)
	return p
}

// Kill SIGKILLs the process and waits for it to be reaped.
func (p *Piped) Kill() {
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	<-p.Done
}
