package codexclients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// tmuxTUI is the Codex TUI running in a detached tmux session.
type tmuxTUI struct {
	t       *testing.T
	session string
	// status is the file the pane's shell writes the TUI's exit status to.
	// tmux's own #{pane_dead_status} is not enough: its server has been
	// seen to leave the ended process unreaped (a zombie) for seconds.
	status string
}

// startTUI starts `codex --remote url ARGS...` (flags such as
// --ask-for-approval, or `resume ID`).
func startTUI(t *testing.T, e *env, url string, args ...string) *tmuxTUI {
	t.Helper()
	return startTUIAs(t, e, url, "", args...)
}

// startTUIAs starts a TUI whose tmux session's name ends in name, so that
// a test can run several at once.
func startTUIAs(t *testing.T, e *env, url, name string, args ...string) *tmuxTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is needed to drive the Codex TUI: %v", err)
	}
	home := filepath.Join(e.Home, "codex-tui-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	session := fmt.Sprintf("interpreter-e2e-%d-%s%s", os.Getpid(), strings.NewReplacer("/", "-", ".", "-", ":", "-").Replace(t.Name()), name)
	status := filepath.Join(t.TempDir(), "tui-exit-status")
	cmd := fmt.Sprintf("cd %q && HOME=%q CODEX_HOME=%q OPENAI_API_KEY= %q --remote %q", e.Work, e.Home, home, codexBinary(t), url)
	for _, a := range args {
		cmd += fmt.Sprintf(" %q", a)
	}
	cmd += fmt.Sprintf("; echo $? > %q", status)
	newSession(t, session, cmd)
	tui := &tmuxTUI{t: t, session: session, status: status}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() })
	return tui
}

// newSession starts a detached tmux session running cmd, keeping its
// whole history. When the last
// session has just been killed, its server may still be exiting: a client
// that reached it then fails ("server exited unexpectedly") and is tried
// again, with a new server.
func newSession(t *testing.T, session, cmd string) {
	t.Helper()
	for try := 1; ; try++ {
		// The tests count lines of the pane's whole history: keep it all
		// (tmux keeps 2000 lines by default, and a long session, goal
		// turns and all, outgrows that).
		out, err := exec.Command("tmux", "start-server", ";", "set-option", "-g", "history-limit", "200000", ";",
			"new-session", "-d", "-s", session, "-x", "160", "-y", "50", cmd).CombinedOutput()
		if err == nil {
			return
		}
		if try == 5 || !strings.Contains(string(out), "server exited unexpectedly") {
			t.Fatalf("tmux new-session: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond) // the old server's exit: nothing to await from here
	}
}

// close ends the TUI (its tmux session).
func (u *tmuxTUI) close() { _ = exec.Command("tmux", "kill-session", "-t", u.session).Run() }

func (u *tmuxTUI) screen() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", u.session).Output()
	return string(out)
}

func (u *tmuxTUI) keys(keys ...string) {
	u.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"send-keys", "-t", u.session}, keys...)...).CombinedOutput(); err != nil {
		u.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

func (u *tmuxTUI) waitFor(what string, cond func(screen string) bool) {
	u.t.Helper()
	e2etest.WaitUntil(u.t, func() bool { return cond(u.screen()) }, 60*time.Second, what, u.screen)
}

// The Codex TUI (`codex --remote`) against `interpreter dev`: it starts
// with nothing else running, runs a turn whose command and answer appear
// on its screen, and calls no method the server does not know.
func TestCodexTUIRemote(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "tui prompt", Steps: []fakemodel.Step{
			{Shell: "echo tui-command-output"},
			{Text: "the TUI turn is done"},
		}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "ws://127.0.0.1:0"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	m := regexp.MustCompile(`App server: +(ws://\S+)`).FindStringSubmatch(dev.Stdout.String())
	if m == nil {
		t.Fatalf("dev did not print the app-server's address:\n%s", dev.Stdout)
	}
	tui := startTUI(t, e, m[1])
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "the tui prompt")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "the tui prompt") })
	tui.keys("Enter")
	tui.waitFor("the turn on screen", func(s string) bool {
		return strings.Contains(s, "echo tui-command-output") && strings.Contains(s, "the TUI turn is done")
	})
	if s := tui.screen(); strings.Contains(s, "unknown method") || strings.Contains(s, "failed") {
		t.Errorf("the TUI shows an error:\n%s", s)
	}
	if out := dev.Stderr.String(); strings.Contains(out, "unknown method") {
		t.Errorf("the TUI called methods the server does not know:\n%s", out)
	}
}

// A SIGKILL of the app-server under a running TUI: the TUI says it is
// reconnecting, reconnects by itself to the app-server started again on
// the same address, and its next turn runs on the same durable thread
// (the model sees the first turn).
func TestCodexTUIReconnectsAfterAppServerKill(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "before the kill", Steps: []fakemodel.Step{{Text: "first answer before the kill"}}},
		{Match: "after the kill", Steps: []fakemodel.Step{{Text: "second answer after the kill"}}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "none"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("ws://127.0.0.1:%d", port)
	app, _ := e.listenApp(addr)
	tui := startTUI(t, e, addr)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "the prompt before the kill")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "the prompt before the kill") })
	tui.keys("Enter")
	tui.waitFor("the first answer", func(s string) bool { return strings.Contains(s, "first answer before the kill") })

	app.Kill()
	tui.waitFor("the TUI to notice", func(s string) bool { return strings.Contains(s, "Reconnecting") })
	again, _ := e.listenApp(addr)
	defer again.Kill()
	tui.waitFor("the TUI to reconnect", func(s string) bool { return !strings.Contains(s, "Reconnecting") })
	tui.keys("-l", "the prompt after the kill")
	tui.waitFor("the second prompt to be typed", func(s string) bool { return strings.Contains(s, "the prompt after the kill") })
	tui.keys("Enter")
	tui.waitFor("the second answer", func(s string) bool { return strings.Contains(s, "second answer after the kill") })

	reqs := e.Model.Server.RequestsContaining("the prompt after the kill")
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), "first answer before the kill") {
		t.Fatalf("the turn after the reconnect did not carry the first turn (%d requests)", len(reqs))
	}
}

// A SIGKILL of the worker while the TUI's turn runs a command: the same
// TUI session shows the turn finishing once a worker is back (the command
// is reported as interrupted, as e2e/crash/workerkill_test.go checks).
func TestCodexTUIWorkerKillMidTurn(t *testing.T) {
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "long command", Steps: []fakemodel.Step{
			{Shell: "while [ ! -e never-there ]; do sleep 0.05; done"},
			{Text: "finished after the worker died"},
		}},
	}})
	worker, _ := w.Worker()
	app, url := w.listenApp("ws://127.0.0.1:0")
	defer app.Kill()
	tui := startTUI(t, w.env, url)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "run the long command")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "run the long command") })
	tui.keys("Enter")
	tui.waitFor("the command to run", func(s string) bool { return strings.Contains(s, "Running while") })

	worker.Kill()
	w.Worker()
	tui.waitFor("the turn to finish on the TUI", func(s string) bool { return strings.Contains(s, "finished after the worker died") })
}

// startDevNoListen starts `interpreter dev` without its own app-server
// listener (the test starts one where it needs it).
func (e *env) startDevNoListen() *e2etest.Proc {
	e.T.Helper()
	p := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "none"}, e.Config()...)...)
	p.WaitFor(func() bool { return strings.Contains(p.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	return p
}

// workerWorld is a Temporal server of this test process and `interpreter
// worker` processes against it: the worker alone can be SIGKILLed.
type workerWorld struct {
	*env
}

func newWorkerWorld(t *testing.T, script *fakemodel.Script) *workerWorld {
	t.Helper()
	e := newEnv(t, script)
	e2etest.StartServer(t, e.Port)
	return &workerWorld{env: e}
}
