// Package activities owns everything a turn does to the world: model calls
// through the provider SDKs, shell commands, patches, and the transcript
// store those steps read and write. Each activity is a method on
// [Activities], which holds the dependencies; workflows call them through
// typed references.
package activities

import (
	"context"
	"net/http"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/interpreter-dev/interpreter/activities/shellsnap"
	"github.com/interpreter-dev/interpreter/activities/skills"
)

// Activities holds the dependencies of every activity.
type Activities struct {
	Store *Store
	// Pollers lists when each worker polling an activity task queue last
	// polled it (the worker fills it from its Temporal client).
	Pollers func(ctx context.Context, queue string) ([]time.Time, error)
	// CommandWorker tells the identity of the worker running a turn's
	// shell command (by its call id), for StopCommand.
	CommandWorker func(ctx context.Context, turnID, callID string) (string, error)
	// Wake sends a turn's run [LiveWakeSignal] (the worker fills it from
	// its Temporal client); nil: commands wake no followers.
	Wake func(ctx context.Context, workflowID, runID string) error
	// Failover lets a handed-off model call outlive its worker (the worker
	// fills it from its Temporal client).
	Failover Failover
	// DemoBaseURL is where the built-in demo provider is served (the
	// scripted fake model started by the worker process).
	DemoBaseURL string
	// HTTPClient is used by provider SDKs; nil means a default.
	HTTPClient *http.Client
	// Getenv reads the worker's environment (API keys); nil means os.Getenv.
	Getenv func(string) string
	// HeartbeatEvery paces heartbeats of long activities.
	HeartbeatEvery time.Duration
	// CommandEnv is added to the environment of every command this worker
	// runs (after the worker's own environment).
	CommandEnv map[string]string
	// Executable is our own binary, re-executed to run and supervise
	// every command (its hidden `sandbox linux` subcommand); empty means
	// os.Executable(). Tests point it at a binary that can act as the
	// helper (see sandbox.RunHelperIfRequested).
	Executable string
	// NoShellSnapshot runs login-shell commands (`bash -lc`) as given,
	// reading the profile every time ([features] shell_snapshot = false).
	NoShellSnapshot bool
	// Warn tells the person running the worker something they should fix
	// (a login profile that cannot be captured); nil: the activity logger.
	Warn func(string)
	// ShellSnapshotTimeout bounds reading the login profile for a
	// snapshot; 0 means shellsnap.DefaultTimeout.
	ShellSnapshotTimeout time.Duration
	// noPIDNamespace makes commands start as on a host without PID
	// namespaces (tests of the fallback).
	noPIDNamespace bool
	// noPTY makes sessions start as on a host without pseudo-terminals.
	noPTY bool
	// Home is the interpreter home: commands may never write there, even
	// when it lies under a writable root.
	Home string
	// MemoryDir holds the memories across threads (raw/ and MEMORY.md).
	MemoryDir string
	// SkillSettings reads which skills are enabled; it is called for every
	// turn, so a change shows in the next one. nil enables every skill.
	SkillSettings func() (skills.Settings, error)
	// SkillsUserHome holds the user's skills in .agents/skills; "" means
	// the user's home directory.
	SkillsUserHome string

	// HostQueue is the workspace host queue this worker serves (set by
	// the worker); work that must run on the workspace host may run
	// in-process when a turn names this queue.
	HostQueue string
	// HandoffQueue is a task queue only this worker process polls, where
	// a model call handed off by a local activity is taken over (set by
	// the worker; empty: the shared queue, and a call that lands on
	// another worker is made afresh).
	HandoffQueue string
	// SessionQueue is a task queue only this worker process polls, where
	// the calls of the unified-exec sessions it holds go (set by the
	// worker; empty: the host queue).
	SessionQueue string

	// MCPEnv holds the values of MCP servers' env variables on this worker
	// (server name, then variable): threads carry only the names.
	MCPEnv map[string]map[string]string

	clients *lru.Cache[string, any]

	// commands are the shell commands this process runs, for StopCommand.
	commands running

	snapOnce sync.Once
	snaps    *shellsnap.Cache

	handoffOnce sync.Once
	// kept holds answers whose transcript could not be stored (storefail.go).
	kept    keptAnswers
	handoff *handoffs[*modelCall]
	// handed are commands local activities handed off (localexec.go).
	handedOnce sync.Once
	handed     *handoffs[*command]
	// local are the commands local activities started (localexec.go).
	localOnce sync.Once
	local     *localRuns
	mcp       mcpPool

	sessionsOnce sync.Once
	sessions     *sessionManager

	// liveEvery, when set, replaces [liveEvery] for commands (tests).
	liveEvery time.Duration
}

// New builds an Activities with a store rooted at storeDir.
func New(storeDir string) (*Activities, error) {
	st, err := NewStore(storeDir)
	if err != nil {
		return nil, err
	}
	c, _ := lru.New[string, any](64)
	return &Activities{Store: st, HeartbeatEvery: time.Second, clients: c}, nil
}
