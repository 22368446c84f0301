package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// These tests run the official Codex CLI (@openai/codex, pinned in
// e2e/codexcli/package.json, whose native binary comes with it) against
// `interpreter app-server --listen`: `codex exec --remote ADDR` is Codex's
// own client of a remote app-server, over WebSocket on TCP or on a Unix
// socket.

var codexCLI struct {
	once sync.Once
	err  error
	out  []byte
}

// codexBinary is the Codex CLI, installed from the lock file (npm ci)
// unless it is there already.
func codexBinary(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e", "codexcli"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "codex")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	codexCLI.once.Do(func() {
		codexCLI.out, codexCLI.err = exec.Command("npm", "ci", "--no-audit", "--no-fund", "--prefix", dir).CombinedOutput()
	})
	if codexCLI.err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", dir, codexCLI.err, codexCLI.out)
	}
	return bin
}

// listenApp starts `interpreter app-server --listen addr` against the
// running dev server and returns it with the address it serves.
func (e *env) listenApp(addr string, extra ...string) (*proc, string) {
	e.t.Helper()
	args := append([]string{"app-server", "--listen", addr}, e.config()...)
	args = append(args, "-c", "temporal.embedded=false")
	p := e.start(append(args, extra...)...)
	re := regexp.MustCompile(`app-server listening on (\S+)`)
	p.waitFor(func() bool { return re.MatchString(p.stderr.String()) }, 60*time.Second, "the app-server to listen")
	return p, re.FindStringSubmatch(p.stderr.String())[1]
}

// codexRemote runs `codex exec --remote url ARGS...` with its own home.
func (e *env) codexRemote(url string, env []string, args ...string) *proc {
	e.t.Helper()
	home := filepath.Join(e.home, "codex-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		e.t.Fatal(err)
	}
	all := append([]string{"exec", "--remote", url}, args...)
	p := &proc{t: e.t, cmd: exec.Command(codexBinary(e.t), all...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = e.work
	p.cmd.Env = append(os.Environ(), "HOME="+e.home, "CODEX_HOME="+home, "OPENAI_API_KEY=")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	p.cmd.Stdin = strings.NewReader("")
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	e.t.Cleanup(func() { p.kill() })
	return p
}

// mustSucceed waits for a codex run and fails the test unless it exited 0.
func (p *proc) mustSucceed(what string) {
	p.t.Helper()
	if code := p.wait(90 * time.Second); code != 0 {
		p.t.Fatalf("%s exited %d\nstdout:\n%s\nstderr:\n%s", what, code, p.stdout, p.stderr)
	}
}

var codexThreadLine = regexp.MustCompile(`thread id: (\S+)`)

// `codex exec --remote` runs a turn on a durable thread over WebSocket on
// TCP and on a Unix socket, and `codex exec --remote ... resume ID` runs
// the next turn of that thread, whose model request carries the first
// turn (the fake model sees the history).
func TestCodexExecRemoteRunsAndResumes(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "first-tcp", Steps: []fakemodel.Step{{Text: "answer one over tcp"}}},
		{Match: "second-tcp", Steps: []fakemodel.Step{{Text: "answer two over tcp"}}},
		{Match: "first-unix", Steps: []fakemodel.Step{{Text: "answer one over unix"}}},
		{Match: "second-unix", Steps: []fakemodel.Step{{Text: "answer two over unix"}}},
	}})
	dev := e.startDev()
	defer dev.kill()
	sock := filepath.Join(t.TempDir(), "app.sock")
	for _, tc := range []struct{ name, addr string }{
		{"tcp", "ws://127.0.0.1:0"},
		{"unix", "unix://" + sock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, url := e.listenApp(tc.addr)
			defer app.kill()
			if tc.name == "unix" && url != "unix://"+sock {
				t.Fatalf("listening on %s, want unix://%s", url, sock)
			}
			first := e.codexRemote(url, nil, "first-"+tc.name)
			first.mustSucceed("codex exec --remote")
			if !strings.Contains(first.stdout.String(), "answer one over "+tc.name) {
				t.Fatalf("codex exec printed %q, want the model's answer\nstderr:\n%s", first.stdout, first.stderr)
			}
			m := codexThreadLine.FindStringSubmatch(first.stderr.String())
			if m == nil {
				t.Fatalf("no thread id in codex's output:\n%s", first.stderr)
			}
			second := e.codexRemote(url, nil, "resume", m[1], "second-"+tc.name)
			second.mustSucceed("codex exec --remote resume")
			if !strings.Contains(second.stdout.String(), "answer two over "+tc.name) {
				t.Fatalf("codex exec resume printed %q\nstderr:\n%s", second.stdout, second.stderr)
			}
			reqs := e.model.Server.RequestsContaining("second-" + tc.name)
			if len(reqs) == 0 {
				t.Fatal("the model never saw the resumed prompt")
			}
			body := string(reqs[len(reqs)-1].Body)
			for _, want := range []string{"first-" + tc.name, "answer one over " + tc.name} {
				if !strings.Contains(body, want) {
					t.Errorf("the resumed turn's model request lacks the first turn's %q", want)
				}
			}
			if out := app.stderr.String(); strings.Contains(out, "unknown method") {
				t.Errorf("the app-server logged an unknown method:\n%s", out)
			}
		})
	}
}

// A listener with --auth-token-env refuses a client with the wrong token
// before any message (the model is never asked) and serves one with the
// right token; a non-loopback address without a token refuses to start,
// naming the flag.
func TestCodexRemoteBearerToken(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "with-token", Steps: []fakemodel.Step{{Text: "token accepted"}}},
	}})
	open := e.start(append([]string{"app-server", "--listen", "ws://0.0.0.0:0"}, e.config()...)...)
	if code := open.wait(30 * time.Second); code != 2 || !strings.Contains(open.stderr.String(), "--auth-token-env") {
		t.Fatalf("a non-loopback bind without a token exited %d, want 2 naming --auth-token-env:\n%s", code, open.stderr)
	}

	dev := e.startDev()
	defer dev.kill()
	t.Setenv("APP_TOKEN", "right-token")
	app, url := e.listenApp("ws://127.0.0.1:0", "--auth-token-env", "APP_TOKEN")
	defer app.kill()

	wrong := e.codexRemote(url, []string{"CLIENT_TOKEN=wrong-token"}, "--remote-auth-token-env", "CLIENT_TOKEN", "with-token")
	if code := wrong.wait(90 * time.Second); code == 0 {
		t.Fatalf("a client with a wrong token ran:\n%s\n%s", wrong.stdout, wrong.stderr)
	}
	if !strings.Contains(wrong.stderr.String(), "401") {
		t.Errorf("codex did not report the refusal (401):\n%s", wrong.stderr)
	}
	none := e.codexRemote(url, nil, "with-token")
	if code := none.wait(90 * time.Second); code == 0 {
		t.Fatalf("a client without a token ran:\n%s\n%s", none.stdout, none.stderr)
	}
	if n := len(e.model.Server.RequestsContaining("with-token")); n != 0 {
		t.Fatalf("refused clients reached the model (%d requests)", n)
	}

	right := e.codexRemote(url, []string{"CLIENT_TOKEN=right-token"}, "--remote-auth-token-env", "CLIENT_TOKEN", "with-token")
	right.mustSucceed("codex exec with the right token")
	if !strings.Contains(right.stdout.String(), "token accepted") {
		t.Fatalf("codex printed %q\n%s", right.stdout, right.stderr)
	}
}
