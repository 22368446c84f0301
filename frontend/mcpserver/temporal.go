package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"go.temporal.io/sdk/client"
	"io"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TemporalOptions configure a [TemporalBackend].
type TemporalOptions struct {
	// Connect reaches Temporal. It is called once, in the background, so
	// that initialize and tools/list are answered while the server, if
	// needed, comes up.
	Connect func(ctx context.Context) (Conn, error)
	// Resolve builds the config of a thread a codex call starts (the
	// configuration with the call's overrides).
	Resolve func(args CodexArgs) (workflows.ThreadConfig, error)
	// TaskQueue is where thread workflows run.
	TaskQueue string
	// Log takes one line per thread and turn started.
	Log io.Writer
}

// Conn is a connection to Temporal.
type Conn struct {
	Client client.Client
	// SearchAttributes: the namespace has the thread search attributes.
	SearchAttributes bool
	// Close ends the connection (and whatever came up with it).
	Close func()
}

// TemporalBackend is the MCP server's [Backend] over a Temporal client,
// through package threads.
type TemporalBackend struct {
	o     TemporalOptions
	ready chan struct{} // closed once connect is done
	conn  Conn
	err   error
}

var _ Backend = (*TemporalBackend)(nil)

// NewTemporalBackend connects in the background; Close ends it.
func NewTemporalBackend(ctx context.Context, o TemporalOptions) *TemporalBackend {
	if o.Log == nil {
		o.Log = io.Discard
	}
	m := &TemporalBackend{o: o, ready: make(chan struct{})}
	go func() {
		defer close(m.ready)
		m.conn, m.err = o.Connect(ctx)
		if m.err != nil {
			fmt.Fprintf(o.Log, "interpreter: mcp-server: %v\n", m.err)
		}
	}()
	return m
}

// Close waits for the connection and ends it.
func (m *TemporalBackend) Close() {
	<-m.ready
	if m.err == nil && m.conn.Close != nil {
		m.conn.Close()
	}
}

// client waits for the connection.
func (m *TemporalBackend) client(ctx context.Context) (client.Client, error) {
	select {
	case <-m.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if m.err != nil {
		return nil, m.err
	}
	return m.conn.Client, nil
}

// NewThread loads the config with the call's overrides (config first, then
// the named fields) and starts the thread with its first turn.
func (m *TemporalBackend) NewThread(ctx context.Context, args CodexArgs) (Started, error) {
	c, err := m.client(ctx)
	if err != nil {
		return Started{}, err
	}
	tc, err := m.o.Resolve(args)
	if err != nil {
		return Started{}, err
	}
	tc.SearchAttributes = m.conn.SearchAttributes
	id := threads.NewID()
	resp, err := threads.Start(ctx, c, threads.NewThread{ThreadID: id, TaskQueue: m.o.TaskQueue, Config: tc},
		workflows.StartTurnRequest{Prompt: args.Prompt})
	if err != nil {
		return Started{}, rootCause(err)
	}
	fmt.Fprintf(m.o.Log, "interpreter: mcp-server: thread %s · %s (model %s, cwd %s)\n", id, resp.TurnID, tc.Model, tc.Cwd)
	return Started{ThreadID: id, TurnID: resp.TurnID, Config: tc}, nil
}

// Reply starts the next turn; a thread that runs a turn answers with a
// BusyError naming it, so the server can wait for it. (Started.Config is
// left empty: only codex sends session_configured.)
func (m *TemporalBackend) Reply(ctx context.Context, threadID, prompt string) (Started, error) {
	c, err := m.client(ctx)
	if err != nil {
		return Started{}, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := threads.Reply(ctx, c, threadID, workflows.StartTurnRequest{Prompt: prompt, WantResult: true})
		if err == nil {
			fmt.Fprintf(m.o.Log, "interpreter: mcp-server: thread %s · %s\n", threadID, resp.TurnID)
			return Started{ThreadID: threadID, TurnID: resp.TurnID, Known: resp.Result}, nil
		}
		if attempt >= 100 || !errors.Is(err, threads.ErrTurnRunning) && !errors.Is(err, threads.ErrTurnWaiting) {
			return Started{}, rootCause(err)
		}
		if now, qerr := threads.Read(ctx, c, threadID); qerr == nil && now.RunningTurn != "" {
			return Started{}, &BusyError{ThreadID: threadID, TurnID: now.RunningTurn}
		}
		// A queued turn is about to start: look again shortly.
		select {
		case <-ctx.Done():
			return Started{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (m *TemporalBackend) Follow(ctx context.Context, turnID string, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	c, err := m.client(ctx)
	if err != nil {
		return nil, err
	}
	return threads.Follow(ctx, c, turnID, 0, fn)
}

func (m *TemporalBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	c, err := m.client(ctx)
	if err != nil {
		return workflows.TurnResult{}, err
	}
	return threads.Outcome(ctx, c, turnID)
}

func (m *TemporalBackend) Decide(ctx context.Context, d workflows.ApprovalDecision) error {
	c, err := m.client(ctx)
	if err != nil {
		return err
	}
	_, err = threads.Decide(ctx, c, d)
	return err
}

func (m *TemporalBackend) Interrupt(ctx context.Context, threadID string) error {
	c, err := m.client(ctx)
	if err != nil {
		return err
	}
	return threads.Interrupt(ctx, c, threadID)
}

// Live reads the turn's running commands' output from their heartbeats.
func (m *TemporalBackend) Live(turnID string) LiveReader {
	select {
	case <-m.ready:
	default:
		return nil
	}
	if m.err != nil {
		return nil
	}
	return threads.NewLiveOutput(m.conn.Client, turnID)
}

// rootCause is the innermost of err's wrapped errors: what a client is
// told.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
