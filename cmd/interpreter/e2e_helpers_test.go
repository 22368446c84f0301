package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// binary is the interpreter built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interpreter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "interpreter")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binary: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for a process writer and a test reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running interpreter process.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

// env is one test's world: a home directory, a fake model, a port.
type env struct {
	t     *testing.T
	home  string
	work  string
	port  int
	model *fakemodel.Running
}

func newEnv(t *testing.T, script *fakemodel.Script) *env {
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
	e := &env{t: t, home: t.TempDir(), work: t.TempDir(), port: port, model: m}
	return e
}

// config are the -c flags that point a command at this env.
func (e *env) config() []string {
	return []string{
		"-c", fmt.Sprintf("temporal.address=127.0.0.1:%d", e.port),
		"-c", "model_provider=fake",
		"-c", fmt.Sprintf("model_providers.fake={name=\"fake\", base_url=%q, wire_api=\"responses\"}", e.model.URL()),
		"-c", "model=fake-model",
	}
}

func (e *env) start(args ...string) *proc {
	e.t.Helper()
	return e.startWith(nil, args...)
}

// startWith is start with more environment variables.
func (e *env) startWith(environ []string, args ...string) *proc {
	e.t.Helper()
	p := &proc{t: e.t, cmd: exec.Command(binary, args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = e.work
	p.cmd.Env = append(append(os.Environ(), "INTERPRETER_HOME="+e.home, "OPENAI_API_KEY="), environ...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	p.cmd.Stdin = strings.NewReader("")
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	e.t.Cleanup(func() { p.kill() })
	return p
}

// startDev runs `interpreter dev` and waits until it is ready.
func (e *env) startDev() *proc {
	e.t.Helper()
	p := e.start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.port)}, e.config()...)...)
	p.waitFor(func() bool { return strings.Contains(p.stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	return p
}

// exec runs `interpreter exec` against the running dev server.
func (e *env) exec(args ...string) *proc {
	all := append([]string{"exec"}, e.config()...)
	all = append(all, "-c", "temporal.embedded=false")
	return e.start(append(all, args...)...)
}

func (p *proc) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("process %v did not finish in %s\nstdout:\n%s\nstderr:\n%s", p.cmd.Args, timeout, p.stdout, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// waitFor polls a condition about the world outside the test (a process's
// output, a file, the fake model's log): there is nothing to block on.
func (p *proc) waitFor(cond func() bool, timeout time.Duration, what string) {
	p.t.Helper()
	exited := false
	waitUntil(p.t, func() bool {
		select {
		case <-p.done:
			exited = true
			return true
		default:
			return cond()
		}
	}, timeout, what, func() string {
		return fmt.Sprintf("stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
	})
	if exited && !cond() {
		p.t.Fatalf("process %v exited while waiting for %s\nstdout:\n%s\nstderr:\n%s", p.cmd.Args, what, p.stdout, p.stderr)
	}
}

func waitUntil(t *testing.T, cond func() bool, timeout time.Duration, what string, diag func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, diag())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jsonEvents parses `exec --json` output lines.
func jsonLines(t *testing.T, out string) []map[string]any {
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
		if err := jsonUnmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		evs = append(evs, m)
	}
	return evs
}

var _ = context.Background
var _ io.Reader

// piped is the built binary started with args in e's home and working
// directory, stdin a pipe, each stdout line handed to line (on one
// goroutine, in order) and closed called when stdout ends (nil: nothing).
// done is closed once the process has then been reaped; kill SIGKILLs it
// and waits for that.
type piped struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	done   chan struct{}
}

func (e *env) startPiped(args []string, line func([]byte), closed func()) *piped {
	e.t.Helper()
	p := &piped{cmd: exec.Command(binary, args...), stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = e.work
	p.cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.home, "OPENAI_API_KEY=")
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		e.t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
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
		_ = p.cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(p.kill)
	return p
}

func (p *piped) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}
