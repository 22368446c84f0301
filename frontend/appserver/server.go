// Package appserver is the app-server front end: Codex's app-server
// protocol (JSON-RPC without the jsonrpc field, one message per line) over
// stdin and stdout, as orchestrators such as Symphony drive coding agents.
//
// The server holds no state that matters. Threads are thread workflows and
// turns are turn workflows behind a [Backend]; a turn's notifications are
// translated from the turn's event log, read from a sequence number. So a
// new server process continues any thread by id (thread/resume) after the
// old one died, and receives the rest of a running turn's events.
package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Options configure a Server.
type Options struct {
	// Version is this program's version (userAgent, cliVersion).
	Version string
	// Home is the server's home directory, reported as codexHome.
	Home string
	// Cwd resolves relative cwd parameters; default: the process's.
	Cwd string
	// Log receives diagnostics (never protocol); default: discarded.
	Log io.Writer
	// RequestTimeout bounds one request's calls to the backend; default
	// one minute.
	RequestTimeout time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// LivePoll is how often a followed turn's live output is polled
	// (slower after a while without news, never while an approval is
	// pending); default 100 ms.
	LivePoll time.Duration
	// APIKey tells account/read that the model provider is configured
	// with an API key (false: it needs no auth).
	APIKey bool
	// MCPServers are the configured MCP servers (mcpServerStatus/list).
	MCPServers []MCPServerInfo
	// Transcript, if set, receives every message in and out of every
	// connection (transcript.go).
	Transcript io.Writer
}

// MCPServerInfo is a configured MCP server as mcpServerStatus/list shows
// it.
type MCPServerInfo struct {
	Name string
	// Disabled: kept in the configuration with enabled = false.
	Disabled bool
	// BearerToken: an HTTP server with a bearer token variable.
	BearerToken bool
}

// Server serves the app-server protocol over a Backend.
type Server struct {
	backend Backend
	opts    Options
	log     *slog.Logger
	record  *transcript
}

// New returns a server over b.
func New(b Backend, opts Options) *Server {
	if opts.Version == "" {
		opts.Version = "0.0.0"
	}
	if opts.Cwd == "" {
		opts.Cwd, _ = os.Getwd()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LivePoll <= 0 {
		opts.LivePoll = 100 * time.Millisecond
	}
	s := &Server{backend: b, opts: opts, log: slog.New(slog.NewTextHandler(opts.Log, nil))}
	if opts.Transcript != nil {
		s.record = &transcript{w: opts.Transcript}
	}
	return s
}

// Serve serves one client reading requests from in and writing responses
// and notifications to out, until in ends (running turns go on in their
// workflows) or ctx is done.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.serve(ctx, out, func(ctx context.Context, ch chan<- lineOrErr) {
		readLines(ctx, newLineReader(in, MaxLineBytes), ch)
	})
}

// serve runs one connection: read delivers its messages (lines or
// WebSocket messages) on its own goroutine; each message is written to out
// with one Write call.
func (s *Server) serve(ctx context.Context, out io.Writer, read func(context.Context, chan<- lineOrErr)) error {
	ctx, cancel := context.WithCancel(ctx)
	w := &lineWriter{w: out}
	var n int64
	if s.record != nil {
		n = s.record.conns.Add(1)
		w.record = func(b []byte) { s.record.record(n, "out", b) }
	}
	c := newConn(ctx, s, w)
	defer func() {
		cancel()
		c.wg.Wait()
		for _, id := range c.ephemeralThreads() {
			s.dropEphemeral(id)
		}
	}()
	lines := make(chan lineOrErr)
	go read(ctx, lines)
	for {
		var l lineOrErr
		select {
		case <-ctx.Done():
			return nil
		case l = <-lines:
		}
		switch {
		case errors.Is(l.err, io.EOF):
			// The turn/starts already read are answered before the
			// connection's context ends (concurrent.go).
			c.starts.Wait()
			return nil
		case l.err != nil:
			return fmt.Errorf("reading: %w", l.err)
		case l.tooLong:
			c.lineTooLong(l.line)
		case l.binary:
			c.fail(nil, invalidRequest("Invalid request: binary WebSocket messages are not supported; send each JSON-RPC message as one text message"))
		default:
			s.record.record(n, "in", l.line)
			c.handleLine(l.line)
		}
		if err := c.out.failed(); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
	}
}

type lineOrErr struct {
	line    []byte
	tooLong bool
	// binary: a WebSocket binary message (dropped, answered).
	binary bool
	err    error
}

// readLines reads on its own goroutine so that Serve can stop on ctx.
func readLines(ctx context.Context, r *lineReader, out chan<- lineOrErr) {
	for {
		line, tooLong, err := r.next()
		select {
		case out <- lineOrErr{line: line, tooLong: tooLong, err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// conn is one client's session: its handshake, the threads it follows,
// its requests in flight.
type conn struct {
	s   *Server
	ctx context.Context
	out *lineWriter
	wg  sync.WaitGroup

	mu           sync.Mutex
	initialized  bool
	experimental bool
	optOut       map[string]bool
	clientName   string
	inflight     map[string]bool
	threads      map[string]*threadState
	// Requests of ours waiting for the client's answer, by id; the
	// questions asked (approvals, dynamic tool calls), by turn and item.
	reqSeq  int64
	waiting map[string]chan clientAnswer
	asks    map[string]*ask
	// execs are the connection's streamed command/exec processes.
	execs map[string]ExecStream
	// starting counts turn/start calls in flight by thread (watch.go).
	starting map[string]int
	// reviews are the review turns this connection follows (review_notify.go).
	reviews map[string]*reviewTurn
	// turnStarts are the last turn/start served beside the others, by
	// thread, and starts counts those in flight (concurrent.go).
	turnStarts map[string]chan struct{}
	starts     sync.WaitGroup
}

// threadState is what a connection keeps about a thread it follows.
type threadState struct {
	id string
	// ctx ends when the connection ends or unsubscribes from the thread;
	// its followers stop then.
	ctx  context.Context
	stop context.CancelFunc
	// pending are settings from thread/resume that the next turn applies.
	pending settings
	// mode is the collaboration mode of thread/settings/update, for turns
	// whose turn/start names none.
	mode json.RawMessage
	// ephemeral: this connection started the thread with ephemeral: true
	// (ephemeral.go).
	ephemeral bool
	// followed are the turns this connection has followed or had when it
	// took the thread up (seeded: marked); see watch.go.
	followed map[string]bool
	seeded   bool
	// follower follows the running turn, if any.
	follower *follower
	// goalKey is the goal state the client was last told of (goal.go).
	goalKey *string
	// held are completions of command items whose sessions still run
	// (bgitems.go).
	held map[string]heldItem
	// killing counts the terminate and clean requests in flight, which
	// complete the items of the sessions they end (bgitems.go).
	killing int
}

// settings are per-thread overrides a client asked for.
type settings struct {
	Model          string
	Cwd            string
	SandboxMode    string
	ApprovalPolicy string
	// Effort and Summary are turn/start's reasoning overrides.
	Effort, Summary string
	// Timeouts are turn/start's timeout overrides.
	Timeouts *workflows.Timeouts
	// DynamicTools are thread/start's only (not an override).
	DynamicTools []workflows.ExternalTool
}

func newConn(ctx context.Context, s *Server, out *lineWriter) *conn {
	return &conn{s: s, ctx: ctx, out: out, inflight: map[string]bool{}, threads: map[string]*threadState{},
		waiting: map[string]chan clientAnswer{}, asks: map[string]*ask{}, starting: map[string]int{}}
}

func (c *conn) logf(format string, args ...any) {
	c.s.log.Warn(fmt.Sprintf(format, args...))
}

// notify sends a notification unless the client opted out of its method.
func (c *conn) notify(n notification) {
	if c.reviewNotify(n) {
		return
	}
	c.mu.Lock()
	skip := c.optOut[n.Method]
	c.mu.Unlock()
	if skip {
		return
	}
	if err := c.out.write(n); err != nil {
		c.logf("writing %s: %v", n.Method, err)
	}
}

func (c *conn) respond(id json.RawMessage, result any) {
	c.release(id)
	if err := c.out.write(response{ID: id, Result: result}); err != nil {
		c.logf("writing a response: %v", err)
	}
}

func (c *conn) fail(id json.RawMessage, err error) {
	c.release(id)
	if id == nil {
		id = json.RawMessage("null")
	}
	re := asRPCError(err)
	if re.Code == codeInternal {
		c.logf("internal error: %s", re.Message)
	}
	if werr := c.out.write(errorResponse{ID: id, Error: re}); werr != nil {
		c.logf("writing an error response: %v", werr)
	}
}

func (c *conn) release(id json.RawMessage) {
	c.mu.Lock()
	delete(c.inflight, string(id))
	c.mu.Unlock()
}

// handleLine serves one line: a request, a notification, or a response to
// a request of ours. Whatever is wrong with it is answered, and the next
// line is read.
func (c *conn) handleLine(line []byte) {
	if len(trimSpace(line)) == 0 {
		return
	}
	if !json.Valid(line) {
		c.fail(nil, &rpcError{Code: codeParseError, Message: "Parse error: the line is not valid JSON"})
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.fail(nil, invalidRequest("Invalid request: expected a JSON-RPC message object, got %s", jsonKind(line)))
		return
	}
	switch {
	case m.Method != nil && m.hasID():
		c.handleRequest(m.ID, *m.Method, m.Params)
	case m.Method != nil:
		c.handleNotification(*m.Method)
	case m.hasID() && (m.Result != nil || m.Error != nil):
		c.handleResponse(m.ID, m.Result, m.Error)
	case m.hasID():
		c.fail(m.ID, invalidRequest("Invalid request: missing field `method`"))
	default:
		c.fail(nil, invalidRequest("Invalid request: a message needs a `method` (request or notification) or an `id` with `result` or `error` (response)"))
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// lineTooLong answers a line over the size limit: addressed to its request
// when its id can be read from its first bytes.
func (c *conn) lineTooLong(head []byte) {
	id := idOfHead(head)
	c.logf("dropped a line over %d bytes", MaxLineBytes)
	c.fail(id, &rpcError{Code: codeInvalidParams,
		Message: fmt.Sprintf("Input exceeds the maximum line length of %d bytes; the message was dropped.", MaxLineBytes),
		Data:    protocol.InputErrorData{InputErrorCode: "input_too_large", MaxBytes: MaxLineBytes}})
}

func (c *conn) handleNotification(method string) {
	switch method {
	case "initialized":
	default:
		c.logf("ignoring client notification %q", method)
	}
}

// handleResponse takes a client's answer to a request of ours. An answer
// to a request that is not waiting (never asked, or settled meanwhile) is
// reported to the client, and the session goes on.
func (c *conn) handleResponse(id, result, errObj json.RawMessage) {
	c.mu.Lock()
	ch := c.waiting[string(id)]
	delete(c.waiting, string(id))
	c.mu.Unlock()
	if ch != nil {
		ch <- clientAnswer{result: result, err: errObj}
		return
	}
	msg := fmt.Sprintf("received a response to request id %s, but this server has no request with that id waiting for an answer; it was ignored", id)
	c.logf("%s", msg)
	c.notify(notice(protocol.Warning{Message: msg}))
}

// result is what a handler returns: the result to send, and optionally
// work to start once the response is on the wire (notifications that must
// follow it).
type result struct {
	value any
	then  func()
}

// handler serves one method. A handler that returns a nil *result has
// taken charge of the response (it answers later, from a goroutine).
type handler func(c *conn, id json.RawMessage, params json.RawMessage) (*result, error)

func (c *conn) handleRequest(id json.RawMessage, method string, params json.RawMessage) {
	if !validID(id) {
		c.fail(nil, invalidRequest("Invalid request: `id` must be a string or an integer"))
		return
	}
	c.mu.Lock()
	if c.inflight[string(id)] {
		c.mu.Unlock()
		c.fail(nil, invalidRequest("Invalid request: request id %s is already in use by a request that has not been answered", id))
		return
	}
	c.inflight[string(id)] = true
	initialized := c.initialized
	c.mu.Unlock()

	if method == "initialize" {
		c.initialize(id, params)
		return
	}
	if !initialized {
		c.fail(id, invalidRequest("Not initialized"))
		return
	}
	h := handlers[method]
	if h == nil {
		// Logged too: a client that calls what this server lacks is worth
		// knowing about (Codex's clients grow new calls).
		c.logf("unknown method %q", method)
		c.fail(id, invalidRequest("Invalid request: unknown method `%s`", method))
		return
	}
	if thread := threadOfParams(params); concurrentMethods[method] && thread != "" {
		c.serveInOrder(thread, func() { c.serve(h, id, params) })
		return
	}
	c.serve(h, id, params)
}

// serve runs a request's handler and answers it.
func (c *conn) serve(h handler, id json.RawMessage, params json.RawMessage) {
	res, err := h(c, id, params)
	switch {
	case err != nil:
		c.fail(id, err)
	case res != nil:
		c.respond(id, res.value)
		if res.then != nil {
			res.then()
		}
	}
}

// background runs f on its own goroutine; Serve waits for it on exit.
func (c *conn) background(f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

// requestContext bounds one request's backend calls.
func (c *conn) requestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.s.opts.RequestTimeout)
}

func (c *conn) nowMs() int64 { return c.s.opts.Now().UnixMilli() }
