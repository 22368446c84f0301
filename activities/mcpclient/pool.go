package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pool keeps live sessions with MCP servers in a bounded LRU cache, keyed
// by a scope (a thread: threads do not share a server's session or
// process), the server's definition and secret values: evicting a session
// (the cache is full, or it was idle for [IdleTimeout]) closes it once no
// call uses it (a stdio server's process ends), and a session whose
// connection ended or whose call failed in transit is dropped, so the next
// use reconnects.
type Pool struct {
	Secrets Secrets
	// Version is sent as the client's version.
	Version string

	// StartupCooldown: a server that did not start within its startup
	// timeout is not tried again for this long (the error comes at once),
	// so a hanging optional server does not cost every turn its whole
	// startup timeout. 0 tries every time.
	StartupCooldown time.Duration

	client *mcp.Client
	cache  *expirable.LRU[string, *session]
	mu     sync.Mutex
	locks  map[string]*sync.Mutex
	slow   map[string]time.Time // when a server last failed to start in time, by key
}

// DefaultStartupCooldown is [Pool.StartupCooldown] of a new pool.
const DefaultStartupCooldown = time.Minute

type session struct {
	cs     *mcp.ClientSession
	done   chan struct{}
	stderr *tail
	name   string
	key    string

	mu      sync.Mutex
	users   int
	retired bool
	once    sync.Once
}

// acquire marks the session in use; release ends that use.
func (s *session) acquire() {
	s.mu.Lock()
	s.users++
	s.mu.Unlock()
}

func (s *session) release() {
	s.mu.Lock()
	s.users--
	closeNow := s.retired && s.users == 0
	s.mu.Unlock()
	if closeNow {
		go s.close()
	}
}

// retire closes the session once no call uses it.
func (s *session) retire() {
	s.mu.Lock()
	s.retired = true
	closeNow := s.users == 0
	s.mu.Unlock()
	if closeNow {
		go s.close()
	}
}

func (s *session) close() {
	s.once.Do(func() { _ = s.cs.Close() })
}

func (s *session) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// DefaultPoolSize is the number of sessions a worker keeps open.
const DefaultPoolSize = 64

// IdleTimeout closes a session nobody used for this long (a thread that
// went quiet does not keep its servers running).
const IdleTimeout = 30 * time.Minute

// NewPool returns a pool keeping at most size sessions.
func NewPool(size int, sec Secrets) *Pool {
	if size <= 0 {
		size = DefaultPoolSize
	}
	c := expirable.NewLRU(size, func(_ string, s *session) { s.retire() }, IdleTimeout)
	client := mcp.NewClient(&mcp.Implementation{Name: "interpreter", Version: "dev"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	return &Pool{Secrets: sec, client: client, cache: c, locks: map[string]*sync.Mutex{},
		StartupCooldown: DefaultStartupCooldown, slow: map[string]time.Time{}}
}

// Close closes every session (calls still running fail).
func (p *Pool) Close() {
	for _, s := range p.cache.Values() {
		p.cache.Remove(s.key)
		s.close()
	}
}

// Len is the number of sessions held.
func (p *Pool) Len() int { return p.cache.Len() }

// Busy is the number of held sessions a call or listing is using.
func (p *Pool) Busy() int {
	n := 0
	for _, s := range p.cache.Values() {
		s.mu.Lock()
		if s.users > 0 {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

func (p *Pool) lock(key string) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.locks[key]
	if !ok {
		l = &sync.Mutex{}
		p.locks[key] = l
	}
	return l
}

// session returns the live session for r, in use (release it), connecting
// within the server's startup timeout when there is none.
func (p *Pool) session(ctx context.Context, r resolved) (_ *session, fresh bool, _ error) {
	l := p.lock(r.key)
	l.Lock()
	defer l.Unlock()
	if s, ok := p.cache.Get(r.key); ok && s.alive() {
		s.acquire()
		p.cache.Add(r.key, s) // renews its idle timeout
		return s, false, nil
	}
	p.cache.Remove(r.key) // a dead or idle-expired one
	if err := p.coolingDown(r); err != nil {
		return nil, false, err
	}

	cctx, cancel := context.WithTimeout(ctx, r.Startup())
	defer cancel()
	s, err := p.connect(cctx, r)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			p.mu.Lock()
			p.slow[r.key] = time.Now()
			p.mu.Unlock()
			return nil, false, fmt.Errorf("mcp server %q did not start within startup_timeout_sec (%s)%s", r.Name, r.Startup(), s.stderrNote())
		}
		s.awaitStderr(time.Second)
		return nil, false, fmt.Errorf("mcp server %q failed to start: %v%s", r.Name, err, s.stderrNote())
	}
	s.key = r.key
	s.acquire()
	p.cache.Add(r.key, s)
	p.mu.Lock()
	delete(p.slow, r.key)
	p.mu.Unlock()
	return s, true, nil
}

// coolingDown refuses, at once, a server that recently did not start in
// time (see [Pool.StartupCooldown]).
func (p *Pool) coolingDown(r resolved) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.slow[r.key]
	if !ok || p.StartupCooldown <= 0 {
		return nil
	}
	if ago := time.Since(at); ago < p.StartupCooldown {
		return fmt.Errorf("mcp server %q did not start within startup_timeout_sec (%s) %s ago; it is tried again %s after that",
			r.Name, r.Startup(), ago.Round(time.Second), p.StartupCooldown)
	}
	delete(p.slow, r.key)
	return nil
}

// drop removes s (if it is still the cached session) and retires it.
func (p *Pool) drop(key string, s *session) {
	if cur, ok := p.cache.Peek(key); ok && cur == s {
		p.cache.Remove(key) // retires it through the eviction callback
		return
	}
	s.retire()
}

// connect opens a session. On failure the returned session is not nil
// when there is a stderr tail worth showing.
func (p *Pool) connect(ctx context.Context, r resolved) (*session, error) {
	s := &session{done: make(chan struct{}), name: r.Name}
	var transport mcp.Transport
	opts := &mcp.ClientSessionOptions{}
	switch r.Transport() {
	case TransportStdio:
		cmd := exec.Command(r.Command, r.Args...)
		cmd.Dir = r.Cwd
		cmd.Env = stdioEnv(r.env)
		s.stderr = newTail(4 << 10)
		w, err := s.stderr.pipe()
		if err != nil {
			return s, fmt.Errorf("creating the stderr pipe: %w", err)
		}
		// The child holds its own copy once started; ours must go so
		// that the reader sees EOF when the server exits.
		defer w.Close()
		cmd.Stderr = w
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case TransportHTTP:
		headers := http.Header{}
		for k, v := range r.HTTPHeaders {
			headers.Set(k, v)
		}
		for k, v := range r.headers {
			headers.Set(k, v)
		}
		if r.token != "" {
			headers.Set("Authorization", "Bearer "+r.token)
		}
		transport = &mcp.StreamableClientTransport{Endpoint: r.URL, DisableStandaloneSSE: true, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: headers}}}
		switch r.ProtocolVersion {
		case ProtocolLegacy:
			opts.ProtocolVersion = legacyVersion
		case Protocol20260728:
			opts.ProtocolVersion = Protocol20260728
		}
	}
	cs, err := p.client.Connect(ctx, transport, opts)
	if err != nil {
		return s, err
	}
	if r.ProtocolVersion == Protocol20260728 {
		if got := cs.InitializeResult().ProtocolVersion; got != Protocol20260728 {
			_ = cs.Close()
			return s, fmt.Errorf("protocol_version is %q but the server answered with %q (set protocol_version = \"auto\" to accept it)", Protocol20260728, got)
		}
	}
	s.cs = cs
	go func() {
		_ = cs.Wait()
		close(s.done)
	}()
	return s, nil
}

// ProtocolVersion reports the protocol version of the live session with s
// (connecting when needed).
func (p *Pool) ProtocolVersion(ctx context.Context, scope string, s Server) (string, error) {
	r, err := p.resolve(scope, s)
	if err != nil {
		return "", err
	}
	sess, _, err := p.session(ctx, r)
	if err != nil {
		return "", errors.New(r.redactor().Redact(err.Error()))
	}
	defer sess.release()
	return sess.cs.InitializeResult().ProtocolVersion, nil
}

func (s *session) stderrNote() string {
	if s == nil || s.stderr == nil {
		return ""
	}
	t := strings.TrimSpace(s.stderr.String())
	if t == "" {
		return ""
	}
	return "; its stderr ends with: " + t
}

// Tool is a server's tool that passed the filters.
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
}

// ListTools connects to s (within its startup timeout) and lists the tools
// its filters let through, sorted by name. Errors name the server and are
// redacted.
func (p *Pool) ListTools(ctx context.Context, scope string, s Server) ([]Tool, error) {
	r, err := p.resolve(scope, s)
	if err != nil {
		return nil, err
	}
	red := r.redactor()
	for attempt := 0; ; attempt++ {
		sess, fresh, err := p.session(ctx, r)
		if err != nil {
			return nil, errors.New(red.Redact(err.Error()))
		}
		tools, err := listTools(ctx, r, sess)
		sess.release()
		if err == nil {
			return tools, nil
		}
		p.drop(r.key, sess)
		if attempt == 0 && !fresh && !isReply(err) && ctx.Err() == nil {
			continue // a stale session: connect again, once
		}
		return nil, errors.New(red.Redact(fmt.Sprintf("mcp server %q: listing tools failed: %v%s", s.Name, err, sess.stderrNote())))
	}
}

func listTools(ctx context.Context, r resolved, sess *session) ([]Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.Startup())
	defer cancel()
	var tools []Tool
	for t, err := range sess.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if r.Allowed(t.Name) {
			tools = append(tools, Tool{Name: t.Name, Description: t.Description, InputSchema: schemaMap(t.InputSchema)})
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, nil
}

func schemaMap(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case nil:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// isReply reports whether err is the server's JSON-RPC error answer (the
// session is fine) rather than a failure of the connection.
func isReply(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// Result is the outcome of a call as the model reads it.
type Result struct {
	Text    string
	IsError bool
}

// CallTool calls a tool of s within its tool timeout. Every failure (the
// server does not start, the tool reports an error, the call times out,
// the server dies) is a Result with IsError set whose text names the
// server; the text is redacted and bounded by maxOutput bytes. A failed
// connection is dropped, so the next call starts the server again. The
// error is only ctx's, when the caller gave up.
func (p *Pool) CallTool(ctx context.Context, scope string, s Server, tool string, args json.RawMessage, maxOutput int) (Result, error) {
	r, err := p.resolve(scope, s)
	if err != nil {
		return Result{Text: err.Error(), IsError: true}, nil
	}
	red := r.redactor()
	finish := func(text string, isErr bool) (Result, error) {
		return Result{Text: Truncate(red.Redact(text), maxOutput, s.Name, tool), IsError: isErr}, nil
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return finish(fmt.Sprintf("mcp server %q: tool %q was not called: its arguments must be a JSON object (%v)", s.Name, tool, err), true)
	}
	var sess *session
	var res *mcp.CallToolResult
	var cctx context.Context
	for attempt := 0; ; attempt++ {
		var fresh bool
		sess, fresh, err = p.session(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return finish(err.Error(), true)
		}
		// The tool timeout bounds the call, not the server's start.
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, r.CallTimeout())
		defer cancel()
		res, err = sess.cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		sess.release()
		if attempt == 0 && !fresh && errors.Is(err, mcp.ErrSessionMissing) && ctx.Err() == nil {
			// The HTTP server forgot the session (it restarted, say): the
			// call was refused, not run, so it is safe to make it again
			// on a new session.
			p.drop(r.key, sess)
			continue
		}
		break
	}
	switch {
	case err == nil && res.IsError:
		return finish(fmt.Sprintf("mcp server %q: tool %q reported an error:\n%s", s.Name, tool, Render(res)), true)
	case err == nil:
		return finish(Render(res), false)
	case ctx.Err() != nil:
		p.drop(r.key, sess)
		return Result{}, ctx.Err()
	case isReply(err):
		return finish(fmt.Sprintf("mcp server %q: tool %q failed: %v", s.Name, tool, err), true)
	case cctx.Err() != nil:
		p.drop(r.key, sess)
		return finish(fmt.Sprintf("mcp server %q: tool %q timed out after %s (tool_timeout_sec); the server will be restarted at the next call", s.Name, tool, r.CallTimeout()), true)
	}
	p.drop(r.key, sess)
	if resultTooLarge(err) {
		return finish(fmt.Sprintf("mcp server %q: the result of tool %q is larger than %d MiB, the most this client reads; it was dropped, and the server will be restarted at the next call",
			s.Name, tool, mcp.DefaultMaxLineLength>>20), true)
	}
	// A server that died may still be flushing its last words.
	sess.awaitStderr(time.Second)
	return finish(fmt.Sprintf("mcp server %q: tool %q failed: the connection to the server was lost (%v)%s; the server will be restarted at the next call", s.Name, tool, err, sess.stderrNote()), true)
}

// resultTooLarge tells whether a call failed because the server's answer
// was longer than the client reads. The go-sdk's transports report that
// with unexported errors, so their text is what we have.
func resultTooLarge(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "maximum line length") || strings.Contains(msg, "SSE event exceeded")
}
