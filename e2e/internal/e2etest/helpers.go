package e2etest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/log"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// Update rewrites golden files instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite golden files")

// ToolCall is a model step's call of tool name with args (JSON).
func ToolCall(name, args string) fakemodel.ToolCall {
	return fakemodel.ToolCall{Name: name, Arguments: []byte(args)}
}

// CompletedItems are the items of the item.completed events of
// `exec --json` output.
func CompletedItems(evs []map[string]any) []map[string]any {
	var items []map[string]any
	for _, e := range evs {
		if e["type"] == "item.completed" {
			items = append(items, e["item"].(map[string]any))
		}
	}
	return items
}

// ThreadIDOf is the thread of `exec --json` output (its first event).
func ThreadIDOf(t *testing.T, evs []map[string]any) string {
	t.Helper()
	if len(evs) == 0 || evs[0]["type"] != "thread.started" {
		t.Fatalf("first event is not thread.started: %v", evs)
	}
	return evs[0]["thread_id"].(string)
}

// WriteSDKConfig writes the config.toml the SDK-spawned exec reads: the SDK
// passes none of our -c flags, only the environment (INTERPRETER_HOME).
func (e *Env) WriteSDKConfig() {
	e.T.Helper()
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"

[temporal]
address = "127.0.0.1:%d"
embedded = false
`, e.Model.URL(), e.Port)
	if err := os.WriteFile(filepath.Join(e.Home, "config.toml"), []byte(cfg), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// RequestWith returns the first model request containing s.
func (e *Env) RequestWith(s string) string {
	e.T.Helper()
	reqs := e.Model.Server.RequestsContaining(s)
	if len(reqs) == 0 {
		e.T.Fatalf("no model request contains %q", s)
	}
	return string(reqs[0].Body)
}

// CheckHistory fails t for each of wants that body (a model request,
// what) lacks.
func CheckHistory(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// MustSucceed waits for a codex run and fails the test unless it exited 0.
func (p *Proc) MustSucceed(what string) {
	p.T.Helper()
	if code := p.Wait(90 * time.Second); code != 0 {
		p.T.Fatalf("%s exited %d\nstdout:\n%s\nstderr:\n%s", what, code, p.Stdout, p.Stderr)
	}
}

// ThreadOf reads the thread id from exec's "thread ID · TURN" line.
func ThreadOf(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`thread (\S+) · `).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no thread line in:\n%s", stderr)
	}
	return m[1]
}

// StartStdin is [Env.Start] with the given file as the process's stdin
// (a terminal, say).
func (e *Env) StartStdin(stdin *os.File, args ...string) *Proc {
	e.T.Helper()
	p := &Proc{T: e.T, Cmd: exec.Command(Binary, args...), Stdout: &SyncBuffer{}, Stderr: &SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = e.Work
	p.Cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.Home, "OPENAI_API_KEY=")
	p.Cmd.Stdout, p.Cmd.Stderr, p.Cmd.Stdin = p.Stdout, p.Stderr, stdin
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() { p.Err = p.Cmd.Wait(); close(p.Done) }()
	e.T.Cleanup(func() { p.Kill() })
	return p
}

// OpenPTY opens a pseudo-terminal: the master (the user's keyboard) and
// the terminal a process reads.
func OpenPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, s, err := sandbox.OpenPTY(24, 80)
	if errors.Is(err, sandbox.ErrNoPTY) {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// QuietLogger keeps the SDK client's log out of the test output.
type QuietLogger struct{}

var _ log.Logger = QuietLogger{}

func (QuietLogger) Debug(string, ...any) {}
func (QuietLogger) Info(string, ...any)  {}
func (QuietLogger) Warn(string, ...any)  {}
func (QuietLogger) Error(string, ...any) {}
