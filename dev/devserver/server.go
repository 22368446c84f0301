// Package devserver embeds a single-process Temporal server (SQLite
// persistence) and, optionally, the Temporal Web UI. It is what
// `interpreter dev` and the embedded fallback of `exec` bring up, and what the
// integration tests run against.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/durationpb"
)

const localhost = "127.0.0.1"

// Options configure an embedded server. Zero values get defaults.
type Options struct {
	// DBFile is the SQLite file; empty with Ephemeral false is an error.
	DBFile    string
	Ephemeral bool
	// Port is the frontend gRPC port (0 picks a free one).
	Port int
	// UIPort enables the Web UI on that port when > 0.
	UIPort    int
	Namespace string
	// SearchAttributes are registered when the namespace is created, and
	// added at start to a database that lacks some.
	SearchAttributes map[string]enumspb.IndexedValueType
	// UIListColumns, when set, are the Web UI list's columns for Namespace
	// in a browser that has not chosen its own (see uidefaults.go).
	UIListColumns []string
	// Retention of closed executions (turns); default 30 days.
	Retention time.Duration
	// Verbose passes the server's warnings to stderr.
	Verbose bool
	// Synchronous is SQLite's synchronous pragma for a file database
	// (default "full"). "normal" skips the fsync of each commit (the
	// write-ahead log is synced at checkpoints): a killed process loses
	// nothing, a power loss or OS crash can lose the last commits. The
	// concurrency benchmark (BENCH_SQLITE_SYNC) measured 200 threads at
	// once: 5.5–7.0 turns/s, first task p95 9.1–10.2 s with full against
	// 6.7–17.3 turns/s, 4.2–6.6 s with normal.
	Synchronous string
	// Metrics, when set, receives the server's metrics (the benchmarks
	// count persistence requests with it); nil: none are kept.
	Metrics metrics.Handler
}

// Server is a running embedded Temporal server.
type Server struct {
	level   zap.AtomicLevel
	server  temporal.Server
	ui      *uiserver.Server
	uiProxy *http.Server
	address string
	uiURL   string
	// visibility is the visibility database file (visibility.go), ""
	// when the records are in the main database or in memory.
	visibility string
}

// Address is host:port of the frontend gRPC service.
func (s *Server) Address() string { return s.address }

// UIURL is the Web UI's base URL, empty when the UI is off.
func (s *Server) UIURL() string { return s.uiURL }

// VisibilityFile is the file that holds the server's visibility records
// beside its database file, "" when that file holds them too (made
// before they were kept apart) or the server runs in memory.
func (s *Server) VisibilityFile() string { return s.visibility }

// Start brings up the server and returns once its services have started.
func Start(opts Options) (*Server, error) {
	if opts.DBFile == "" && !opts.Ephemeral {
		return nil, errors.New("devserver: a database file is required unless ephemeral")
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Retention == 0 {
		opts.Retention = 30 * 24 * time.Hour
	}
	if opts.Port == 0 {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		opts.Port = p
	}
	// The caller's ports are not bound yet when the internal ones are
	// picked: keep FreePort from handing them out.
	reserve(opts.Port, opts.UIPort)
	var srv *Server
	var err error
	// The services' internal ports are picked free, then bound by the
	// server; another process can take one in between. Such a start is
	// retried on fresh ports (the frontend port, chosen by the caller,
	// stays).
	for attempt := 0; attempt < 4; attempt++ {
		srv, err = start(opts)
		if err == nil || !portTaken(err) {
			break
		}
	}
	return srv, err
}

func start(opts Options) (*Server, error) {
	conf, err := buildConfig(opts)
	if err != nil {
		return nil, err
	}
	logger, level := newLogger(opts.Verbose)
	serverOpts := []temporal.ServerOption{
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(staticHosts(conf)),
		temporal.WithLogger(logger),
		temporal.WithDynamicConfigClient(dynamicConfig()),
	}
	if opts.Metrics != nil {
		serverOpts = append(serverOpts, temporal.WithCustomMetricsHandler(opts.Metrics))
	}
	srv, err := temporal.NewServer(serverOpts...)
	if err != nil {
		return nil, fmt.Errorf("building temporal server: %w", err)
	}
	s := &Server{level: level, server: srv, address: net.JoinHostPort(localhost, strconv.Itoa(opts.Port))}
	if ds, ok := conf.Persistence.DataStores[visibilityStore]; ok && !opts.Ephemeral {
		s.visibility = ds.SQL.DatabaseName
	}
	if opts.UIPort > 0 {
		uiPort := opts.UIPort
		if len(opts.UIListColumns) > 0 {
			if uiPort, err = FreePort(); err != nil {
				return nil, fmt.Errorf("picking a port for the web UI: %w", err)
			}
			s.uiProxy = uiProxy(net.JoinHostPort(localhost, strconv.Itoa(opts.UIPort)),
				net.JoinHostPort(localhost, strconv.Itoa(uiPort)), uiDefaultsScript(opts.Namespace, opts.UIListColumns))
			go func() {
				if err := s.uiProxy.ListenAndServe(); err != nil && err != http.ErrServerClosed {
					fmt.Fprintf(os.Stderr, "interpreter: web UI stopped: %v\n", err)
				}
			}()
		}
		s.ui = uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                localhost,
			Port:                uiPort,
			TemporalGRPCAddress: s.address,
			EnableUI:            true,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
			DisableNewsFetch:    true,
		}))
		s.uiURL = fmt.Sprintf("http://%s:%d", localhost, opts.UIPort)
		go func() {
			// Start blocks until Stop; an error here means the port was taken.
			if err := s.ui.Start(); err != nil {
				fmt.Fprintf(os.Stderr, "interpreter: web UI stopped: %v\n", err)
			}
		}()
	}
	if err := srv.Start(); err != nil {
		if s.ui != nil {
			s.ui.Stop()
		}
		return nil, fmt.Errorf("starting temporal server: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ensureSearchAttributes(ctx, s.address, opts.Namespace, opts.SearchAttributes); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop shuts the UI and the server down.
func (s *Server) Stop() {
	// Shutting down makes every service log the calls it cancels; none of
	// that is news to the user.
	s.level.SetLevel(zap.FatalLevel)
	if s.uiProxy != nil {
		_ = s.uiProxy.Close()
	}
	if s.ui != nil {
		s.ui.Stop()
	}
	_ = s.server.Stop()
}

// dynamicConfig removes the dev server's per-task pacing: by default the
// one-shard history service polls its transfer queue at most 20 times a
// second, which adds ~50 ms between an activity's completion and the next
// workflow task.
func dynamicConfig() dynamicconfig.StaticClient {
	dc := dynamicconfig.StaticClient{}
	dc[dynamicconfig.MakeKey("history.transferProcessorMaxPollRPS")] = 2000
	dc[dynamicconfig.MakeKey("history.timerProcessorMaxPollRPS")] = 2000
	dc[dynamicconfig.MakeKey("history.visibilityProcessorMaxPollRPS")] = 2000
	dc[dynamicconfig.MakeKey("system.enableActivityEagerExecution")] = true
	// Balance task dispatch by fairness key (threads set theirs to the
	// thread id: workflows.ThreadPriority), so a new turn does not wait
	// behind the next task of every running one.
	dc[dynamicconfig.MakeKey("matching.enableFairness")] = true
	// One partition per task queue: with the default four, a task and the
	// poller waiting for it can sit on different partitions and meet only
	// after a forward.
	dc[dynamicconfig.MakeKey("matching.numTaskqueueReadPartitions")] = 1
	dc[dynamicconfig.MakeKey("matching.numTaskqueueWritePartitions")] = 1
	dc[dynamicconfig.MakeKey("frontend.namespaceRPS.visibility")] = 1000
	// Updates that long-poll the event log are many and short-lived.
	dc[dynamicconfig.MakeKey("history.maxInFlightUpdates")] = 100
	dc[dynamicconfig.MakeKey("history.maxTotalUpdates")] = 100000
	dc[dynamicconfig.MakeKey("history.longPollExpirationInterval")] = HistoryLongPoll
	return dc
}

// HistoryLongPoll is how long the server holds a history long poll (a
// turn's follower waiting for its next event) before it answers empty
// and the follower asks again; the server's default is 20 s. What bounds
// it: the Go SDK gives the call 65 s, but the frontend's own call to the
// history service has a fixed 30 s timeout, and the history service
// answers a second before its caller's deadline, so a long poll lasts 29 s
// at most. The same setting is how long an update waits for its outcome
// before answering "not yet" (the SDK then asks again); that wait is not
// cut short by the deadline, so it stays 2 s below the 30 s. On a
// Temporal CLI server, the same comes from
// `--dynamic-config-value history.longPollExpirationInterval='"28s"'`.
const HistoryLongPoll = 28 * time.Second

func buildConfig(opts Options) (*config.Config, error) {
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = localhost
	conf.Persistence.DefaultStore = "sqlite"
	conf.Persistence.VisibilityStore = "sqlite"
	conf.Persistence.NumHistoryShards = 1
	// Before buildSQL, which creates a new main file: whether that file
	// was there already tells a database from before the split.
	visConf, err := buildVisibilitySQL(opts)
	if err != nil {
		return nil, err
	}
	sqlConf, err := buildSQL(opts)
	if err != nil {
		return nil, err
	}
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlConf}}
	if visConf != nil {
		conf.Persistence.VisibilityStore = visibilityStore
		conf.Persistence.DataStores[visibilityStore] = config.DataStore{SQL: visConf}
	}
	httpPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(localhost, strconv.Itoa(opts.Port))
	conf.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        "active",
		CurrentClusterName:       "active",
		ClusterInformation: map[string]cluster.ClusterInformation{
			"active": {
				Enabled:                true,
				InitialFailoverVersion: 1,
				RPCAddress:             addr,
				HTTPAddress:            net.JoinHostPort(localhost, strconv.Itoa(httpPort)),
				ClusterID:              "interpreter-dev",
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Services = map[string]config.Service{}
	for _, name := range []string{"frontend", "history", "matching", "worker"} {
		var svc config.Service
		svc.RPC.BindOnIP = localhost
		if name == "frontend" {
			svc.RPC.GRPCPort = opts.Port
			svc.RPC.HTTPPort = httpPort
		} else if svc.RPC.GRPCPort, err = FreePort(); err != nil {
			return nil, err
		}
		conf.Services[name] = svc
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = addr
	return &conf, nil
}

func buildSQL(opts Options) (*config.SQL, error) {
	conf := config.SQL{PluginName: sqliteplugin.PluginName}
	if opts.Ephemeral {
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		conf.DatabaseName = fmt.Sprintf("interpreter-%d-%d", os.Getpid(), time.Now().UnixNano())
	} else {
		// The plugin passes every key that is not a URI parameter on as a
		// pragma, under that very name. Write-ahead logging: one fsync per
		// commit instead of a rollback journal's several; synchronous=full
		// keeps each commit across a power loss (NORMAL could lose the
		// last ones, and with them the record that a command started).
		conf.ConnectAttributes = map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": syncMode(opts)}
		conf.DatabaseName = opts.DBFile
		if _, err := os.Stat(opts.DBFile); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(opts.DBFile), 0o700); err != nil {
				return nil, fmt.Errorf("creating database directory: %w", err)
			}
			if err := sqliteschema.SetupSchema(&conf); err != nil {
				return nil, fmt.Errorf("setting up database schema in %s: %w", opts.DBFile, err)
			}
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", opts.Namespace, false, opts.SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("namespace config: %w", err)
	}
	ns.Detail.Config.Retention = durationpb.New(opts.Retention)
	if err := sqliteschema.CreateNamespaces(&conf, ns); err != nil {
		return nil, fmt.Errorf("creating namespace %q: %w", opts.Namespace, err)
	}
	return &conf, nil
}

// syncMode is the synchronous pragma of a file database.
func syncMode(opts Options) string {
	if opts.Synchronous == "" {
		return "full"
	}
	return opts.Synchronous
}

func staticHosts(conf *config.Config) map[primitives.ServiceName]static.Hosts {
	host := func(name string) static.Hosts {
		return static.SingleLocalHost(net.JoinHostPort(localhost, strconv.Itoa(conf.Services[name].RPC.GRPCPort)))
	}
	return map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: host("frontend"),
		primitives.MatchingService: host("matching"),
		primitives.HistoryService:  host("history"),
		primitives.WorkerService:   host("worker"),
	}
}

func newLogger(verbose bool) (log.Logger, zap.AtomicLevel) {
	level := zap.NewAtomicLevelAt(zap.ErrorLevel)
	if verbose {
		level.SetLevel(zap.WarnLevel)
	}
	cfg := zap.NewProductionConfig()
	cfg.Level = level
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	cfg.Encoding = "console"
	cfg.DisableStacktrace = true
	zl, err := cfg.Build()
	if err != nil {
		return log.NewNoopLogger(), level
	}
	return cancelQuiet{log.NewZapLogger(zl)}, level
}

// FreePort finds a free TCP port on localhost. It draws from below the
// kernel's ephemeral range (32768 and up), where outgoing connections take
// their ports, so a port found free is much less likely to be taken before
// the server binds it. A port is handed out once per process: a server
// needs several, and one probed free but not bound yet is still free to
// the next probe.
func FreePort() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for i := 0; i < 200; i++ {
		port := 20000 + rand.IntN(12000)
		if handedOut.ports[port] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(localhost, strconv.Itoa(port)))
		if err == nil {
			l.Close()
			handedOut.ports[port] = true
			return port, nil
		}
	}
	l, err := net.Listen("tcp", localhost+":0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	handedOut.ports[port] = true
	return port, nil
}

// reserve marks ports as handed out (0 is no port).
func reserve(ports ...int) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for _, p := range ports {
		if p > 0 {
			handedOut.ports[p] = true
		}
	}
}

var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// portTaken tells whether a start failed because a port was taken. The
// Temporal server's listener failure reaches us as a logged message's
// text, not as the net package's error, so the OS's text is all there is
// to go by; the typed check comes first for the cases that keep it.
func portTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}
