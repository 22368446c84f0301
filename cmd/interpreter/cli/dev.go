package cli

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// DevCmd groups the dev commands; plain `interpreter dev` starts the server.
type DevCmd struct {
	Start     DevStartCmd  `cmd:"" default:"withargs" help:"Start the embedded Temporal server, the Web UI and a worker."`
	FakeModel FakeModelCmd `cmd:"" name:"fake-model" help:"Serve a scripted fake model (OpenAI Responses / Chat, Anthropic Messages wire formats)."`
}

// DevStartCmd runs the embedded server, UI and worker in one process.
type DevStartCmd struct {
	DB        string `help:"SQLite database file (default: $INTERPRETER_HOME/temporal.db)." xor:"db" placeholder:"PATH"`
	Ephemeral bool   `help:"Keep everything in memory; nothing survives a restart." xor:"db"`
	Port      int    `default:"7233" help:"Temporal gRPC port."`
	UIPort    int    `default:"8233" name:"ui-port" help:"Web UI port."`
	Headless  bool   `help:"Do not start the Web UI."`

	Listen       string `placeholder:"ADDR" help:"Also serve the app-server protocol here (ws://HOST:PORT or unix://PATH; default ws://127.0.0.1:8234 when free; none: off) for codex --remote."`
	AuthTokenEnv string `name:"auth-token-env" placeholder:"VAR" help:"Bearer token clients of --listen must send, from environment variable VAR."`
}

// Run starts everything and blocks until SIGINT/SIGTERM.
func (d *DevStartCmd) Run(ctx context.Context, g *Globals, io Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	eo := embedOptions{DBFile: d.DB, Ephemeral: d.Ephemeral, Port: d.Port, UIPort: d.UIPort}
	if eo.DBFile == "" && !eo.Ephemeral {
		eo.DBFile = defaultDB(cfg)
	}
	if d.Headless {
		eo.UIPort = 0
	}
	if err := portFree(d.Port); err != nil {
		return exitf(1, "port %d: %v (is another `interpreter dev` or Temporal server running?)", d.Port, err)
	}
	b, err := startEmbedded(ctx, cfg, eo, io.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(io.Out, "Temporal server: %s (namespace %s)\n", b.server.Address(), cfg.Temporal.Namespace)
	if b.server.UIURL() != "" {
		fmt.Fprintf(io.Out, "Web UI:          %s/namespaces/%s/workflows\n", b.server.UIURL(), cfg.Temporal.Namespace)
	}
	if eo.Ephemeral {
		fmt.Fprintf(io.Out, "Database:        in memory (ephemeral)\n")
	} else {
		fmt.Fprintf(io.Out, "Database:        %s\n", eo.DBFile)
		if v := b.server.VisibilityFile(); v != "" {
			fmt.Fprintf(io.Out, "Visibility:      %s (what lists and searches read)\n", v)
		}
	}
	appURL, err := serveDevApp(ctx, g, cfg, b, d.Listen, d.AuthTokenEnv, io)
	if err != nil {
		return err
	}
	if appURL != "" {
		fmt.Fprintf(io.Out, "App server:      %s (codex --remote %s)\n", appURL, appURL)
	}
	fmt.Fprintf(io.Out, "Worker:          task queue %s, host queue %s\n", cfg.Temporal.TaskQueue, cfg.Temporal.HostQueue)
	fmt.Fprintf(io.Out, "Traces:          %s\n", tracingNote(b.tracing))
	forget, err := writeDevUI(cfg.Home(), b.server.Address(), b.server.UIURL())
	if err != nil {
		fmt.Fprintf(io.Err, "interpreter: warning: %v (front ends will not print links to the Web UI)\n", err)
	}
	defer forget()
	fmt.Fprintf(io.Out, "Ready. Press Ctrl-C to stop.\n")
	<-ctx.Done()
	fmt.Fprintf(io.Err, "interpreter: stopping\n")
	return nil
}

func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// FakeModelCmd serves a scripted fake model for trying the product with no
// API key, and for tests.
type FakeModelCmd struct {
	Script string `help:"Script file (JSON). Default: the built-in demo script." placeholder:"FILE" type:"existingfile"`
	Port   int    `default:"0" help:"Port (0 picks a free one)."`
}

// Run serves until SIGINT/SIGTERM.
func (f *FakeModelCmd) Run(ctx context.Context, io Stdio) error {
	script := fakemodel.DemoScript()
	if f.Script != "" {
		s, err := fakemodel.LoadScript(f.Script)
		if err != nil {
			return exitf(2, "%v", err)
		}
		script = s
	}
	r, err := fakemodel.Start(net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Port)), script)
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Fprintf(io.Out, "fake model serving at %s\n", r.URL())
	<-ctx.Done()
	return nil
}
