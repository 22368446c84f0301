// Command codexdriver runs the side-by-side benchmark's scripted turns
// against a real Codex binary (`codex mcp-server`, `codex app-server`),
// with the fake model of dev/fakemodel as its provider, and prints one
// line of figures per measurement, named as the interpreter's own
// benchmarks name theirs. dev/bench/sidebyside.sh runs it beside them.
//
//	go run ./dev/bench/codexdriver -codex e2e/codexcli/node_modules/.bin/codex -what mcp,appserver,step,concurrent
//
// With -interpreter the binary is ours: the same measurements, through its
// app-server and MCP server as a user runs them (config.toml in
// INTERPRETER_HOME, the embedded Temporal server on a free port).
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

func main() {
	codex := flag.String("codex", "codex", "the Codex binary")
	what := flag.String("what", "mcp,appserver,step,concurrent", "measurements to run, comma-separated")
	rounds := flag.Int("rounds", 10, "rounds of the mcp, appserver and step measurements")
	threads := flag.Int("threads", 50, "threads at once in the concurrent measurement")
	modelMs := flag.Int("model-ms", 200, "the fake model's latency in the concurrent measurement")
	tool := flag.String("tool", "shell_command", "the shell tool the model calls: shell_command, exec_command or shell")
	userHome := flag.String("home", os.Getenv("HOME"), "HOME for Codex and its login shells (default: the user's, as the interpreter's benchmarks run)")
	keep := flag.Bool("keep", false, "keep the working directory (Codex's home, logs)")
	ours := flag.Bool("interpreter", false, "the binary is the interpreter's: the same measurements through its app-server and MCP server, with an embedded server of its own")
	flag.Parse()
	work, err := os.MkdirTemp("", "codexdriver-")
	if err != nil {
		fail(err)
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintf(os.Stderr, "codexdriver: working directory %s\n", work)
	}
	b := &bench{codex: *codex, work: work, tool: *tool, rounds: *rounds, home: *userHome, ours: *ours}
	if out, err := execOutput(*codex, "--version"); err == nil {
		fmt.Printf("# %s\n", strings.TrimSpace(out))
	}
	for _, w := range strings.Split(*what, ",") {
		var err error
		switch strings.TrimSpace(w) {
		case "mcp":
			err = b.mcp()
		case "appserver":
			err = b.appServer()
		case "step":
			err = b.step()
		case "concurrent":
			err = b.concurrent(*threads, *modelMs)
		default:
			err = fmt.Errorf("unknown measurement %q", w)
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", w, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "codexdriver: %v\n", err)
	os.Exit(1)
}

type bench struct {
	codex, work, tool, home string
	rounds                  int
	seq                     int
	// ours: the binary is the interpreter (its home and Temporal server
	// are configured as a user of it would: config.toml in
	// INTERPRETER_HOME, the embedded server on a port of its own).
	ours bool
}

// shellStep is one model step that runs `echo step` through the shell
// tool Codex offers. shell_command runs its string in the user's shell as
// a login shell (`bash -lc`), as the interpreter's `bash -lc` step does.
func (b *bench) shellStep(repeat, delay int) fakemodel.Step {
	var args string
	switch b.tool {
	case "exec_command":
		args = `{"cmd":"echo step"}`
	case "shell":
		args = `{"command":["bash","-lc","echo step"]}`
	default:
		args = `{"command":"echo step"}`
	}
	return fakemodel.Step{ToolCalls: []fakemodel.ToolCall{{Name: b.tool, Arguments: []byte(args)}}, Repeat: repeat, DelayMs: delay}
}

// env is a Codex home whose provider is a fresh fake model serving
// script, and the environment to run Codex in.
type env struct {
	model *fakemodel.Running
	vars  []string
	cwd   string
	log   *os.File
}

func (b *bench) env(script *fakemodel.Script) (*env, error) {
	b.seq++
	dir := filepath.Join(b.work, fmt.Sprint(b.seq))
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "cwd")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	m, err := fakemodel.Start("127.0.0.1:0", script)
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(`model = "gpt-5.1-codex"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
requires_openai_auth = false
request_max_retries = 0
stream_max_retries = 0
`, m.URL())
	homeVar := "CODEX_HOME="
	if b.ours {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		conf += fmt.Sprintf("\n[temporal]\naddress = \"127.0.0.1:%d\"\nembedded = true\n", port)
		homeVar = "INTERPRETER_HOME="
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, "codex.log"))
	if err != nil {
		return nil, err
	}
	return &env{model: m, cwd: cwd, log: log, vars: []string{
		// The user's HOME, so a login shell reads the same profile as the
		// interpreter's commands do in its benchmarks.
		homeVar + home, "HOME=" + b.home, "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash", "RUST_LOG=warn",
	}}, nil
}

func (e *env) close() {
	_ = e.model.Close()
	_ = e.log.Close()
}

// checkTool reports whether the model was offered the tool it called and
// saw the command's output, so a figure is never of a refused call.
func (b *bench) checkTool(e *env) error {
	reqs := e.model.Server.Requests()
	offered, ran := false, false
	for _, r := range reqs {
		body := string(r.Body)
		offered = offered || strings.Contains(body, fmt.Sprintf(`"name":%q`, b.tool))
		ran = ran || (strings.Contains(body, "function_call_output") && strings.Contains(body, `step\n`))
	}
	if !offered || !ran {
		if len(reqs) > 0 {
			_ = os.WriteFile(filepath.Join(b.work, "last-request.json"), reqs[len(reqs)-1].Body, 0o600)
		}
		return fmt.Errorf("codex was not offered %s or its command did not run (offered %v, output seen %v); try -tool", b.tool, offered, ran)
	}
	return nil
}

// freePort is a TCP port nothing listens on now, for an embedded server.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
