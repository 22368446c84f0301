// Package cli is the interpreter's command tree (kong). Commands run
// in-process with their own stdin/stdout/stderr so tests can drive them.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	execfe "github.com/interpreter-dev/interpreter/frontend/exec"

	"github.com/alecthomas/kong"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/worker"
)

// Stdio are a command's streams.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Globals are flags every command takes.
type Globals struct {
	Config       []string `short:"c" name:"config" sep:"none" help:"Override a config.toml key: key=value (value parsed as TOML, else a string). Repeatable." placeholder:"KEY=VALUE"`
	StrictConfig bool     `help:"Reject unknown config keys."`
	Profile      string   `help:"Config profile to use."`
	Home         string   `env:"INTERPRETER_HOME" help:"Home directory (config.toml, database, store)." placeholder:"DIR"`

	// warn receives the warnings about the configuration (stderr), each
	// once per process.
	warn   io.Writer
	warned sync.Map
}

// exitError carries an exit code through kong's Run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

type root struct {
	Globals
	ShowVersion kong.VersionFlag `name:"version" help:"Print the version (the release and the build's commit)."`

	Exec       ExecCmd       `cmd:"" help:"Run a task non-interactively (or continue a thread with 'exec resume ID')."`
	Dev        DevCmd        `cmd:"" help:"Run the embedded Temporal server, Web UI and a worker."`
	Worker     WorkerCmd     `cmd:"" help:"Run a worker against a Temporal server."`
	Setup      SetupCmd      `cmd:"" help:"Register the search attributes threads use on a namespace (or print the commands an admin must run)."`
	Store      StoreCmd      `cmd:"" help:"The transcript store: serve it to workers on other machines."`
	App        AppCmd        `cmd:"" name:"app-server" help:"Serve Codex's app-server protocol (JSON-RPC lines) on stdin/stdout."`
	Approve    ApproveCmd    `cmd:"" help:"Answer a pending approval: approve THREAD ITEM --decision approve|approve_for_session|deny|abort (no ITEM: list them)."`
	Harness    HarnessCmd    `cmd:"" help:"List the harnesses, or show one as it is sent to a model."`
	Threads    ThreadsCmd    `cmd:"" help:"List, show, follow and archive threads (from Temporal visibility and workflow queries)."`
	Memory     MemoryCmd     `cmd:"" help:"Memory across threads ([memories] enabled = true)."`
	Goal       GoalCmd       `cmd:"" help:"Set, show, pause, resume or clear a thread's goal (docs/goals.md)."`
	Automation AutomationCmd `cmd:"" help:"Prompts and commands run on a schedule: add, list, show, pause, resume, run, remove (docs/automations.md)."`
	Skills     SkillsCmd     `cmd:"" help:"List the skills a turn gets here (see docs/skills-and-mcp-servers.md)."`
	Mcp        McpCmd        `cmd:"" help:"Manage external MCP servers ([mcp_servers]): add, list, get, remove."`
	Version    VersionCmd    `cmd:"" help:"Print the version."`

	McpServer McpServerCmd `cmd:"" name:"mcp-server" help:"Serve the codex and codex-reply tools over MCP on stdio (durable threads)."`
	Sandbox   SandboxCmd   `cmd:"" hidden:"" help:"Run a command inside the sandbox (used by workers)."`
}

// Run parses args and runs the command; it returns the exit code.
func Run(args []string, stdio Stdio) int {
	worker.NameBinary()
	var r root
	exit := -1
	parser, err := kong.New(&r,
		kong.Name("interpreter"),
		kong.Description("A coding agent whose every step is durable (Temporal)."),
		kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(func(code int) { exit = code }),
		kong.UsageOnError(),
		kong.Vars{"version": versionLine()},
	)
	if err != nil {
		fmt.Fprintf(stdio.Err, "interpreter: %v\n", err)
		return 2
	}
	kctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit
	}
	if err != nil {
		fmt.Fprintf(stdio.Err, "interpreter: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	kctx.BindTo(ctx, (*context.Context)(nil))
	r.Globals.warn = stdio.Err
	kctx.Bind(stdio, &r.Globals)
	if err := kctx.Run(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			fmt.Fprintf(stdio.Err, "interpreter: %v\n", ee.err)
			return ee.code
		}
		var fe *execfe.ExitError // a front end's
		if errors.As(err, &fe) {
			fmt.Fprintf(stdio.Err, "interpreter: %v\n", fe.Err)
			return fe.Code
		}
		fmt.Fprintf(stdio.Err, "interpreter: %v\n", err)
		return 1
	}
	return 0
}

// load reads the configuration with the global flags and extra overrides.
func (g *Globals) load(extra []string) (*config.Config, error) {
	cfg, err := config.Load(config.Options{
		Home:      g.Home,
		Overrides: append(append([]string{}, g.Config...), extra...),
		Strict:    g.StrictConfig,
		Profile:   g.Profile,
	})
	if err != nil {
		return nil, exitf(2, "%v", err)
	}
	for _, w := range cfg.Warnings() {
		if _, dup := g.warned.LoadOrStore(w, true); !dup && g.warn != nil {
			fmt.Fprintf(g.warn, "interpreter: warning: %s\n", w)
		}
	}
	return cfg, nil
}
