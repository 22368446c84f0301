package codexclients

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
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
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
func (e *env) listenApp(addr string, extra ...string) (*e2etest.Proc, string) {
	e.T.Helper()
	args := append([]string{"app-server", "--listen", addr}, e.Config()...)
	args = append(args, "-c", "temporal.embedded=false")
	p := e.Start(append(args, extra...)...)
	re := regexp.MustCompile(`app-server listening on (\S+)`)
	p.WaitFor(func() bool { return re.MatchString(p.Stderr.String()) }, 60*time.Second, "the app-server to listen")
	return p, re.FindStringSubmatch(p.Stderr.String())[1]
}

// codexRemote runs `codex exec --remote url ARGS...` with its own home.
func (e *env) codexRemote(url string, env []string, args ...string) *e2etest.Proc {
	e.T.Helper()
	home := filepath.Join(e.Home, "codex-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		e.T.Fatal(err)
	}
	all := append([]string{"exec", "--remote", url}, args...)
	p := &e2etest.Proc{T: e.T, Cmd: exec.Command(codexBinary(e.T), all...), Stdout: &e2etest.SyncBuffer{}, Stderr: &e2etest.SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = e.Work
	p.Cmd.Env = append(os.Environ(), "HOME="+e.Home, "CODEX_HOME="+home, "OPENAI_API_KEY=")
	p.Cmd.Env = append(p.Cmd.Env, env...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	p.Cmd.Stdin = strings.NewReader("")
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() { p.Err = p.Cmd.Wait(); close(p.Done) }()
	e.T.Cleanup(func() { p.Kill() })
	return p
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
	dev := e.StartDev()
	defer dev.Kill()
	sock := filepath.Join(t.TempDir(), "app.sock")
	for _, tc := range []struct{ name, addr string }{
		{"tcp", "ws://127.0.0.1:0"},
		{"unix", "unix://" + sock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, url := e.listenApp(tc.addr)
			defer app.Kill()
			if tc.name == "unix" && url != "unix://"+sock {
				t.Fatalf("listening on %s, want unix://%s", url, sock)
			}
			first := e.codexRemote(url, nil, "first-"+tc.name)
			first.MustSucceed("codex exec --remote")
			if !strings.Contains(first.Stdout.String(), "answer one over "+tc.name) {
				t.Fatalf("codex exec printed %q, want the model's answer\nstderr:\n%s", first.Stdout, first.Stderr)
			}
			m := codexThreadLine.FindStringSubmatch(first.Stderr.String())
			if m == nil {
				t.Fatalf("no thread id in codex's output:\n%s", first.Stderr)
			}
			second := e.codexRemote(url, nil, "resume", m[1], "second-"+tc.name)
			second.MustSucceed("codex exec --remote resume")
			if !strings.Contains(second.Stdout.String(), "answer two over "+tc.name) {
				t.Fatalf("codex exec resume printed %q\nstderr:\n%s", second.Stdout, second.Stderr)
			}
			reqs := e.Model.Server.RequestsContaining("second-" + tc.name)
			if len(reqs) == 0 {
				t.Fatal("the model never saw the resumed prompt")
			}
			body := string(reqs[len(reqs)-1].Body)
			for _, want := range []string{"first-" + tc.name, "answer one over " + tc.name} {
				if !strings.Contains(body, want) {
					t.Errorf("the resumed turn's model request lacks the first turn's %q", want)
				}
			}
			if out := app.Stderr.String(); strings.Contains(out, "unknown method") {
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
	open := e.Start(append([]string{"app-server", "--listen", "ws://0.0.0.0:0"}, e.Config()...)...)
	if code := open.Wait(30 * time.Second); code != 2 || !strings.Contains(open.Stderr.String(), "--auth-token-env") {
		t.Fatalf("a non-loopback bind without a token exited %d, want 2 naming --auth-token-env:\n%s", code, open.Stderr)
	}

	dev := e.StartDev()
	defer dev.Kill()
	t.Setenv("APP_TOKEN", "right-token")
	app, url := e.listenApp("ws://127.0.0.1:0", "--auth-token-env", "APP_TOKEN")
	defer app.Kill()

	wrong := e.codexRemote(url, []string{"CLIENT_TOKEN=wrong-token"}, "--remote-auth-token-env", "CLIENT_TOKEN", "with-token")
	if code := wrong.Wait(90 * time.Second); code == 0 {
		t.Fatalf("a client with a wrong token ran:\n%s\n%s", wrong.Stdout, wrong.Stderr)
	}
	if !strings.Contains(wrong.Stderr.String(), "401") {
		t.Errorf("codex did not report the refusal (401):\n%s", wrong.Stderr)
	}
	none := e.codexRemote(url, nil, "with-token")
	if code := none.Wait(90 * time.Second); code == 0 {
		t.Fatalf("a client without a token ran:\n%s\n%s", none.Stdout, none.Stderr)
	}
	if n := len(e.Model.Server.RequestsContaining("with-token")); n != 0 {
		t.Fatalf("refused clients reached the model (%d requests)", n)
	}

	right := e.codexRemote(url, []string{"CLIENT_TOKEN=right-token"}, "--remote-auth-token-env", "CLIENT_TOKEN", "with-token")
	right.MustSucceed("codex exec with the right token")
	if !strings.Contains(right.Stdout.String(), "token accepted") {
		t.Fatalf("codex printed %q\n%s", right.Stdout, right.Stderr)
	}
}
