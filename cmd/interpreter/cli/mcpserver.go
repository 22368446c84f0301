package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/mcpserver"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// McpServerCmd serves the codex and codex-reply tools over MCP on stdio.
// stdout carries the protocol only; everything else goes to stderr.
type McpServerCmd struct{}

// Run serves until stdin closes (running turns go on in their workflows)
// or a signal arrives.
func (m *McpServerCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	be := &mcpBackend{g: g, cfg: cfg, log: stdio.Err, ready: make(chan struct{})}
	// Connect in the background: the client's initialize and tools/list are
	// answered while the Temporal server, if needed, comes up.
	go be.connect(ctx)
	defer be.close()

	out := stdio.Out
	if out == io.Writer(os.Stdout) {
		// Anything in this process that prints to os.Stdout by accident
		// lands on stderr instead of corrupting the protocol.
		os.Stdout = os.Stderr
		defer func() { os.Stdout = out.(*os.File) }()
	}
	srv := mcpserver.New(be, mcpserver.Options{Name: "interpreter", Version: Version, Log: stdio.Err})
	if err := srv.Serve(ctx, stdio.In, out); err != nil {
		return exitf(1, "mcp-server: %v", err)
	}
	return nil
}

// mcpBackend is the MCP server's Backend over the Temporal client.
type mcpBackend struct {
	g   *Globals
	cfg *config.Config
	log io.Writer

	ready chan struct{} // closed once connect is done
	b     *backend
	err   error
	sa    bool // the namespace has the thread search attributes

}

var _ mcpserver.Backend = (*mcpBackend)(nil)

func (m *mcpBackend) connect(ctx context.Context) {
	defer close(m.ready)
	m.b, m.err = connect(ctx, m.cfg, m.log)
	if m.err != nil {
		fmt.Fprintf(m.log, "interpreter: mcp-server: %v\n", m.err)
		return
	}
	m.sa = hasSearchAttributes(ctx, m.b, m.cfg.Temporal.Namespace)
}

func (m *mcpBackend) close() {
	<-m.ready
	if m.b != nil {
		m.b.Close()
	}
}

// backend waits for the connection.
func (m *mcpBackend) backend(ctx context.Context) (*backend, error) {
	select {
	case <-m.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if m.err != nil {
		return nil, m.err
	}
	return m.b, nil
}

// NewThread loads the config with the call's overrides (config first, then
// the named fields) and starts the thread with its first turn.
func (m *mcpBackend) NewThread(ctx context.Context, args mcpserver.CodexArgs) (mcpserver.Started, error) {
	b, err := m.backend(ctx)
	if err != nil {
		return mcpserver.Started{}, err
	}
	extra := map[string]any{}
	for k, v := range args.Config {
		extra[k] = v
	}
	for k, v := range map[string]string{"model": args.Model, "approval_policy": args.ApprovalPolicy, "sandbox_mode": args.Sandbox} {
		if v != "" {
			extra[k] = v
		}
	}
	cfg, err := config.Load(config.Options{Home: m.g.Home, Overrides: m.g.Config, Strict: m.g.StrictConfig, Profile: m.g.Profile, Extra: extra})
	if err != nil {
		return mcpserver.Started{}, fmt.Errorf("config: %w", err)
	}
	tc, err := threadConfig(cfg, args.Cwd)
	if err != nil {
		return mcpserver.Started{}, err
	}
	if args.BaseInstructions != "" {
		tc.BaseInstructions = args.BaseInstructions
	}
	if args.DeveloperInstructions != "" {
		tc.DeveloperInstructions = args.DeveloperInstructions
	}
	if args.CompactPrompt != "" {
		tc.CompactPrompt = args.CompactPrompt
	}
	if err := checkAPIKey(tc, b); err != nil {
		return mcpserver.Started{}, err
	}
	tc.SearchAttributes = m.sa
	id := newThreadID()
	resp, err := threads.Start(ctx, b.client, threads.NewThread{ThreadID: id, TaskQueue: cfg.Temporal.TaskQueue, Config: tc},
		workflows.StartTurnRequest{Prompt: args.Prompt})
	if err != nil {
		return mcpserver.Started{}, rootCause(err)
	}
	fmt.Fprintf(m.log, "interpreter: mcp-server: thread %s · %s (model %s, cwd %s)\n", id, resp.TurnID, tc.Model, tc.Cwd)
	return mcpserver.Started{ThreadID: id, TurnID: resp.TurnID, Config: tc}, nil
}

// Reply starts the next turn; a thread that runs a turn answers with a
// BusyError naming it, so the server can wait for it. (Started.Config is
// left empty: only codex sends session_configured.)
func (m *mcpBackend) Reply(ctx context.Context, threadID, prompt string) (mcpserver.Started, error) {
	b, err := m.backend(ctx)
	if err != nil {
		return mcpserver.Started{}, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := threads.Reply(ctx, b.client, threadID, workflows.StartTurnRequest{Prompt: prompt})
		if err == nil {
			fmt.Fprintf(m.log, "interpreter: mcp-server: thread %s · %s\n", threadID, resp.TurnID)
			return mcpserver.Started{ThreadID: threadID, TurnID: resp.TurnID}, nil
		}
		msg := err.Error()
		if attempt >= 100 || !strings.Contains(msg, "is running turn") && !strings.Contains(msg, "waiting to start") {
			return mcpserver.Started{}, rootCause(err)
		}
		if now, qerr := threads.Read(ctx, b.client, threadID); qerr == nil && now.RunningTurn != "" {
			return mcpserver.Started{}, &mcpserver.BusyError{ThreadID: threadID, TurnID: now.RunningTurn}
		}
		// A queued turn is about to start: look again shortly.
		select {
		case <-ctx.Done():
			return mcpserver.Started{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (m *mcpBackend) Follow(ctx context.Context, turnID string, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	b, err := m.backend(ctx)
	if err != nil {
		return nil, err
	}
	return threads.Follow(ctx, b.client, turnID, 0, fn)
}

func (m *mcpBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	b, err := m.backend(ctx)
	if err != nil {
		return workflows.TurnResult{}, err
	}
	return threads.Outcome(ctx, b.client, turnID)
}

func (m *mcpBackend) Decide(ctx context.Context, d workflows.ApprovalDecision) error {
	b, err := m.backend(ctx)
	if err != nil {
		return err
	}
	_, err = threads.Decide(ctx, b.client, d)
	return err
}

func (m *mcpBackend) Interrupt(ctx context.Context, threadID string) error {
	b, err := m.backend(ctx)
	if err != nil {
		return err
	}
	return threads.Interrupt(ctx, b.client, threadID)
}

// Live reads the turn's running commands' output from their heartbeats.
func (m *mcpBackend) Live(turnID string) mcpserver.LiveReader {
	select {
	case <-m.ready:
	default:
		return nil
	}
	if m.b == nil {
		return nil
	}
	return threads.NewLiveOutput(m.b.client, turnID)
}
