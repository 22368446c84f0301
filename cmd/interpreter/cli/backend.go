package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/worker"
	"github.com/interpreter-dev/interpreter/workflows"
)

// backend is what a command talks to: a Temporal client, and when this
// process brought them up, the embedded server and a worker.
type backend struct {
	client   client.Client
	server   *devserver.Server
	workers  *worker.Workers
	demo     *fakemodel.Running
	embedded bool
	// background: this command started `interpreter dev` as a daemon.
	background bool
	// tracing exports this process's spans (nil: off).
	tracing *worker.Tracing
}

func (b *backend) Close() {
	if b.workers != nil {
		b.workers.Stop()
	}
	if b.client != nil {
		b.client.Close()
	}
	if b.demo != nil {
		_ = b.demo.Close()
	}
	if b.server != nil {
		b.server.Stop()
	}
	b.tracing.Stop()
}

func quietLogger(w io.Writer) sdklog.Logger {
	return cancelQuiet{sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelError})))}
}

// dial connects to the configured Temporal server.
func dial(ctx context.Context, t config.Temporal, address string, logTo io.Writer, ics ...interceptor.ClientInterceptor) (client.Client, error) {
	opts := client.Options{HostPort: address, Namespace: t.Namespace, Logger: quietLogger(logTo), Interceptors: ics}
	if loopback(address) {
		// Compressing every request costs CPU that the server on the same
		// machine needs more; over a network the SDK's gzip stays on.
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	tc, err := t.TLSConfig()
	if err != nil {
		return nil, exitf(2, "%v", err)
	}
	opts.ConnectionOptions.TLS = tc
	if t.APIKeyEnv != "" {
		key := os.Getenv(t.APIKeyEnv)
		if key == "" {
			return nil, exitf(2, "%s is not set (temporal.api_key_env)", t.APIKeyEnv)
		}
		opts.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %w", address, err)
	}
	return c, nil
}

// loopback tells whether address names this machine (the embedded server,
// or a dev server beside it).
func loopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// probe tells whether a Temporal frontend answers at the address.
func probe(ctx context.Context, t config.Temporal) bool {
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	c, err := dial(ctx, t, t.Address, io.Discard)
	if err != nil {
		return false
	}
	defer c.Close()
	_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err == nil
}

type embedOptions struct {
	DBFile    string
	Ephemeral bool
	Port      int
	UIPort    int
}

func defaultDB(cfg *config.Config) string { return filepath.Join(cfg.Home(), "temporal.db") }

// startEmbedded brings up the embedded server, connects to it, and starts a
// worker, all in this process.
func startEmbedded(ctx context.Context, cfg *config.Config, eo embedOptions, logTo io.Writer) (*backend, error) {
	if err := os.MkdirAll(cfg.Home(), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", cfg.Home(), err)
	}
	tr, err := startTracing(ctx, cfg, logTo)
	if err != nil {
		return nil, err
	}
	srv, err := devserver.Start(devserver.Options{
		DBFile: eo.DBFile, Ephemeral: eo.Ephemeral, Port: eo.Port, UIPort: eo.UIPort,
		Namespace: cfg.Temporal.Namespace, SearchAttributes: workflows.SearchAttributeTypes(), UIListColumns: workflows.UIListColumns,
	})
	if err != nil {
		tr.Stop()
		return nil, err
	}
	b := &backend{server: srv, embedded: true, tracing: tr}
	t := cfg.Temporal
	t.TLS, t.TLSCert, t.TLSCA, t.APIKeyEnv = false, "", "", ""
	if b.client, err = dial(ctx, t, srv.Address(), logTo, tr.ClientInterceptors()...); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.startWorker(cfg, "embedded", false, nil); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// startWorker starts this process's workers and the built-in demo model.
func (b *backend) startWorker(cfg *config.Config, identity string, toolsOnly bool, versioning *worker.Versioning) error {
	acts, err := activities.New(filepath.Join(cfg.Home(), "store"))
	if err != nil {
		return err
	}
	if err := setRemote(acts.Store, cfg); err != nil {
		return err
	}
	demo, err := fakemodel.Start("127.0.0.1:0", fakemodel.DemoScript())
	if err != nil {
		return fmt.Errorf("starting the demo model: %w", err)
	}
	b.demo = demo
	acts.DemoBaseURL = demo.URL()
	acts.Home = cfg.Home()
	acts.MemoryDir = filepath.Join(cfg.Home(), "memories")
	// Read for every turn: a skill disabled in config.toml is gone from
	// the next turn of a running thread.
	acts.SkillSettings = func() (skills.Settings, error) {
		c, err := cfg.Reload()
		if err != nil {
			return skills.Settings{}, err
		}
		return c.SkillSettings(), nil
	}
	acts.MCPEnv = cfg.MCPEnv()
	acts.NoShellSnapshot = !cfg.ShellSnapshots()
	acts.Warn = func(msg string) { fmt.Fprintf(os.Stderr, "interpreter: warning: %s\n", msg) }
	mem, err := cfg.MemorySettings()
	if err != nil {
		return exitf(2, "%v", err)
	}
	w, err := worker.Start(b.client, worker.Options{
		TaskQueue:  cfg.Temporal.TaskQueue,
		HostQueue:  cfg.Temporal.HostQueue,
		Activities: acts,
		ToolsOnly:  toolsOnly,
		Tracing:    b.tracing,
		Identity:   worker.Identity(identity, cfg.Temporal.HostQueue),
		Namespace:  cfg.Temporal.Namespace,
		Versioning: versioning,
		// Automations' turns start as this process's front ends start
		// theirs.
		AutomationTurns: threads.AutomationTurns{Client: b.client},
		Reclaimed: func(n int, err error) {
			if err != nil {
				fmt.Fprintf(os.Stderr, "interpreter: warning: looking for activities of a dead worker on this host: %v\n", err)
			} else if n > 0 {
				fmt.Fprintf(os.Stderr, "interpreter: ended %d activities of a dead worker on this host (their turns go on)\n", n)
			}
		},
	})
	if err != nil {
		return err
	}
	b.workers = w
	if mem.Enabled && !toolsOnly {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := worker.EnsureMemorySchedule(ctx, b.client, cfg.Temporal.TaskQueue, mem.ConsolidateEvery,
			workflows.ConsolidateRequest{MaxUnusedDays: mem.MaxUnusedDays}); err != nil {
			fmt.Fprintf(os.Stderr, "interpreter: warning: %v (run `interpreter memory consolidate` by hand)\n", err)
		}
	}
	return nil
}
