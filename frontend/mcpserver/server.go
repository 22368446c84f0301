// Package mcpserver is the stdio MCP front end: the tools codex (start a
// thread and run its first turn) and codex-reply (run the next turn of a
// thread), with the argument names, results and codex/event notifications
// of Codex's own mcp-server.
//
// The server holds no state that matters: threads and turns live in
// Temporal workflows behind a [Backend], so a new server process continues
// any thread by id after the old one died.
package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	// Name and Version are what the server tells clients it is.
	Name    string
	Version string
	// Cwd resolves relative cwd arguments; default: the process's.
	Cwd string
	// Log receives diagnostics (never protocol); default: discarded.
	Log io.Writer
	// StartTimeout bounds starting a turn; default 2 minutes.
	StartTimeout time.Duration
	// LivePoll is how often a followed turn's live output is polled for
	// agent_message_delta and exec_command_output_delta; default 100 ms.
	LivePoll time.Duration
}

// Server serves the codex tools over a Backend.
type Server struct {
	backend Backend
	opts    Options
	logger  *slog.Logger
}

// New returns a server over b.
func New(b Backend, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "interpreter"
	}
	if opts.Cwd == "" {
		opts.Cwd, _ = os.Getwd()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.LivePoll <= 0 {
		opts.LivePoll = 100 * time.Millisecond
	}
	logger := slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return &Server{backend: b, opts: opts, logger: logger}
}

// Serve serves one client with newline-delimited JSON-RPC read from in and
// written to out, until in ends (a clean return: running turns go on in
// their workflows) or ctx is done.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	conn := newCodexConn()
	err := s.mcpServer(conn).Run(ctx, &codexTransport{inner: &lineTransport{in: in, out: out}, conn: conn})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// Connect serves one client over t (tests use in-memory transports).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	conn := newCodexConn()
	return s.mcpServer(conn).Connect(ctx, &codexTransport{inner: t, conn: conn}, nil)
}

// mcpServer builds the SDK server of one connection, its tools bound to it.
func (s *Server) mcpServer(conn *codexConn) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version},
		&mcp.ServerOptions{Logger: s.logger})
	h := &handlers{s: s, conn: conn}
	mcp.AddTool(srv, CodexTool(), h.codex)
	mcp.AddTool(srv, ReplyTool(), h.reply)
	return srv
}

// CodexTool describes the codex tool.
func CodexTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolCodex,
		Title: "Codex",
		Description: "Start a coding-agent session: create a thread, run its first turn with the prompt, and return the " +
			"final message with the threadId. The thread is durable: continue it with codex-reply, also after this server restarts.",
		InputSchema:  CodexInputSchema(),
		OutputSchema: OutputSchema(),
	}
}

// ReplyTool describes the codex-reply tool.
func ReplyTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  ToolReply,
		Title: "Codex Reply",
		Description: "Continue a coding-agent session: run the next turn of the thread named by threadId with the prompt " +
			"and return the final message. If the thread is still running a turn, that turn finishes first.",
		InputSchema:  ReplyInputSchema(),
		OutputSchema: OutputSchema(),
	}
}
