// Package devtest brings up the real parts for integration tests and
// benchmarks in one process: the embedded Temporal server (SQLite in
// memory), workers, and the scripted fake model.
package devtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/worker"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TaskQueue is the shared queue of the test world.
const TaskQueue = "interpreter-test"

// World is a running server, client and fake model.
type World struct {
	TB     testing.TB
	Server *devserver.Server // nil for [StartAt]
	// Address is the server's frontend address.
	Address string
	Client  client.Client
	Model   *fakemodel.Running
	Store   string
	Dir     string
}

// Start brings up an ephemeral server and a fake model serving script.
func Start(tb testing.TB, script *fakemodel.Script) *World {
	tb.Helper()
	return start(tb, script, devserver.Options{Ephemeral: true})
}

// StartFile is [Start] with the server's state in an SQLite file, as
// `interpreter dev` keeps it (benchmarks measure both).
func StartFile(tb testing.TB, script *fakemodel.Script) *World {
	tb.Helper()
	return start(tb, script, devserver.Options{DBFile: filepath.Join(tb.TempDir(), "temporal.sqlite")})
}

// StartFileWith is [StartFile] with more server options (a metrics
// handler, say); DBFile is set here.
func StartFileWith(tb testing.TB, script *fakemodel.Script, opts devserver.Options) *World {
	tb.Helper()
	opts.DBFile = filepath.Join(tb.TempDir(), "temporal.sqlite")
	return start(tb, script, opts)
}

// StartAt is [Start] against a Temporal server that runs as its own
// process at address (a cluster, or the Temporal CLI's dev server).
func StartAt(tb testing.TB, address string, script *fakemodel.Script) *World {
	tb.Helper()
	return startWith(tb, nil, address, script)
}

func start(tb testing.TB, script *fakemodel.Script, opts devserver.Options) *World {
	tb.Helper()
	opts.SearchAttributes = workflows.SearchAttributeTypes()
	worker.NameBinary() // before the server's own workers start
	srv, err := devserver.Start(opts)
	if err != nil {
		tb.Fatalf("starting server: %v", err)
	}
	tb.Cleanup(srv.Stop)
	return startWith(tb, srv, srv.Address(), script)
}

func startWith(tb testing.TB, srv *devserver.Server, address string, script *fakemodel.Script) *World {
	c, err := client.Dial(client.Options{
		HostPort:          address,
		ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{}},
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	})
	if err != nil {
		tb.Fatalf("dialing: %v", err)
	}
	tb.Cleanup(c.Close)
	m, err := fakemodel.Start("127.0.0.1:0", script)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	dir := tb.TempDir()
	return &World{TB: tb, Server: srv, Address: address, Client: c, Model: m, Store: filepath.Join(dir, "store"), Dir: dir}
}

// WorkerOptions shape one worker.
type WorkerOptions struct {
	HostQueue  string
	Name       string
	ToolsOnly  bool
	CommandEnv map[string]string
	// MCPEnv holds MCP servers' env values (server, then variable).
	MCPEnv map[string]map[string]string
	// Client the worker polls with (nil: the world's); Tracing, when set,
	// must be the one whose interceptors that client carries.
	Client  client.Client
	Tracing *worker.Tracing
	// NoShellSnapshot runs login shells as given (the profile read by
	// every `bash -lc`), as [features] shell_snapshot = false does.
	NoShellSnapshot bool
	// SkillSettings say which skills are enabled (nil: all); the user's
	// skills are looked up under <Dir>/user-home, never the real home.
	SkillSettings func() (skills.Settings, error)
	// Versioning puts the shared worker into a Worker Deployment.
	Versioning *worker.Versioning
	// Store is the worker's store directory (default: the world's,
	// shared by all its workers); Remote its second tier.
	Store  string
	Remote activities.Remote
}

// StartWorker starts a worker sharing the world's store.
func (w *World) StartWorker(o WorkerOptions) *worker.Workers {
	w.TB.Helper()
	if o.Store == "" {
		o.Store = w.Store
	}
	acts, err := activities.New(o.Store)
	if err != nil {
		w.TB.Fatal(err)
	}
	if o.Remote != nil {
		acts.Store.SetRemote(o.Remote)
	}
	acts.CommandEnv = o.CommandEnv
	acts.MCPEnv = o.MCPEnv
	acts.MemoryDir = filepath.Join(w.Dir, "memories")
	acts.SkillSettings = o.SkillSettings
	acts.NoShellSnapshot = o.NoShellSnapshot
	acts.SkillsUserHome = filepath.Join(w.Dir, "user-home")
	if acts.Home == "" {
		acts.Home = filepath.Join(w.Dir, "interpreter-home")
	}
	if o.HostQueue == "" {
		o.HostQueue = TaskQueue + "-host-test"
	}
	c := o.Client
	if c == nil {
		c = w.Client
	}
	ws, err := worker.Start(c, worker.Options{TaskQueue: TaskQueue, HostQueue: o.HostQueue,
		Activities: acts, Identity: o.Name, ToolsOnly: o.ToolsOnly, Tracing: o.Tracing, Versioning: o.Versioning,
		AutomationTurns: threads.AutomationTurns{Client: c}})
	if err != nil {
		w.TB.Fatal(err)
	}
	w.TB.Cleanup(ws.Stop)
	return ws
}

// Dial opens another client to the world's server (closed at the end of
// the test), with the given interceptors.
func (w *World) Dial(ics ...interceptor.ClientInterceptor) client.Client {
	w.TB.Helper()
	c, err := client.Dial(client.Options{
		HostPort:          w.Address,
		ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{}},
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		Interceptors:      ics,
	})
	if err != nil {
		w.TB.Fatalf("dialing: %v", err)
	}
	w.TB.Cleanup(c.Close)
	return c
}

// Config is a thread config pointing at the fake model.
func (w *World) Config(hostQueue string) workflows.ThreadConfig {
	if hostQueue == "" {
		hostQueue = TaskQueue + "-host-test"
	}
	return workflows.ThreadConfig{
		Model:          "fake-model",
		Provider:       activities.ProviderSpec{ID: "fake", BaseURL: w.Model.URL(), WireAPI: activities.WireResponses},
		Harness:        "codex",
		Cwd:            w.Dir,
		SandboxMode:    "danger-full-access",
		ApprovalPolicy: "never",
		MaxSteps:       1000,
		TurnTimeout:    time.Hour,
		HostQueue:      hostQueue,
		// As `interpreter` runs them by default (temporal.local_commands).
		Commands: workflows.CommandsLocal,
	}
}

var seq int

// RunTurn starts a new thread with one turn and waits for its result.
func (w *World) RunTurn(ctx context.Context, cfg workflows.ThreadConfig, prompt string) (string, workflows.TurnResult) {
	w.TB.Helper()
	seq++
	id := fmt.Sprintf("test-thread-%d-%d", time.Now().UnixNano(), seq)
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: prompt})
	if err != nil {
		w.TB.Fatalf("starting thread: %v", err)
	}
	return id, w.WaitTurn(ctx, id, resp.TurnID)
}

// WaitTurn waits for a turn's result (by following its whole chain of
// runs, across continue-as-new).
func (w *World) WaitTurn(ctx context.Context, threadID, turnID string) workflows.TurnResult {
	w.TB.Helper()
	res, err := threads.Outcome(ctx, w.Client, turnID)
	if err != nil {
		w.TB.Fatalf("turn %s: %v", turnID, err)
	}
	return res
}
