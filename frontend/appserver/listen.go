package appserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// ListenOptions configure an Endpoint.
type ListenOptions struct {
	// Token is the bearer token every WebSocket upgrade must carry
	// (`Authorization: Bearer <token>`, what `codex --remote-auth-token-env`
	// sends); empty: none is asked for, which Listen allows on loopback and
	// Unix socket addresses only.
	Token string
	// HandshakeTimeout bounds reading a connection's upgrade request;
	// default 10 s.
	HandshakeTimeout time.Duration
	// MaxConns bounds the connections served at once; an upgrade beyond
	// it is answered 503. Default 256.
	MaxConns int
	// PingInterval is how often an idle client is pinged (a client that
	// does not answer within the interval is disconnected); default 30 s.
	PingInterval time.Duration
	// WriteTimeout bounds sending one message to a client; default 30 s.
	WriteTimeout time.Duration
}

// ErrNeedsToken is Listen's answer for a network address that is not
// loopback without a token: anyone who reaches it could run commands.
var ErrNeedsToken = errors.New("a non-loopback address needs a bearer token")

// Endpoint is a bound WebSocket listener (TCP or Unix socket) that serves
// a Server's protocol, each connection its own session over the Server's
// Backend.
type Endpoint struct {
	s    *Server
	ln   net.Listener
	url  string
	unix string
	opts ListenOptions
	sem  chan struct{}
}

// Listen binds addr: ws://HOST:PORT (PORT 0 picks a free port) or
// unix://PATH (a stale socket file at PATH is replaced; the socket is made
// readable by its owner only).
func Listen(addr string, opts ListenOptions) (*Endpoint, error) {
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 256
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 30 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 30 * time.Second
	}
	e := &Endpoint{opts: opts, sem: make(chan struct{}, opts.MaxConns)}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	switch u.Scheme {
	case "ws":
		if err := e.listenTCP(u); err != nil {
			return nil, err
		}
	case "unix":
		if err := e.listenUnix(u.Host + u.Path); err != nil {
			return nil, err
		}
	case "wss":
		return nil, fmt.Errorf("listen address %q: wss:// (TLS) is not served; terminate TLS in a proxy in front of ws://", addr)
	default:
		return nil, fmt.Errorf("listen address %q: want ws://HOST:PORT or unix://PATH", addr)
	}
	return e, nil
}

func (e *Endpoint) listenTCP(u *url.URL) error {
	host, port := u.Hostname(), u.Port()
	if host == "" || port == "" || (u.Path != "" && u.Path != "/") {
		return fmt.Errorf("listen address %q: want ws://HOST:PORT", u)
	}
	if !loopback(host) && e.opts.Token == "" {
		return fmt.Errorf("listen address %s: %w", u, ErrNeedsToken)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	e.ln, e.url = ln, "ws://"+ln.Addr().String()
	return nil
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (e *Endpoint) listenUnix(path string) error {
	if path == "" {
		return errors.New("listen address unix://: give the socket's path, unix:///path/to/app-server.sock")
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return fmt.Errorf("listen address unix://%s: the file exists and is not a socket", path)
		}
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return fmt.Errorf("listen address unix://%s: another server is listening there", path)
		}
		// A socket nobody listens on is left over from a process that died.
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return err
	}
	e.ln, e.url, e.unix = ln, "unix://"+path, path
	return nil
}

// URL is the address clients connect to (the bound port filled in).
func (e *Endpoint) URL() string { return e.url }

// Serve serves s on the endpoint's connections until ctx is done, then
// closes every connection (running turns go on in their workflows) and
// returns. It is called once.
func (e *Endpoint) Serve(ctx context.Context, s *Server) error {
	e.s = s
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var conns sync.WaitGroup
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conns.Add(1)
			defer conns.Done()
			e.serveHTTP(w, r)
		}),
		// No ReadTimeout: its deadline would stay on the hijacked
		// connection; the header timeout is cleared once the upgrade
		// request is read.
		ReadHeaderTimeout: e.opts.HandshakeTimeout,
		IdleTimeout:       e.opts.HandshakeTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(e.ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	cancel()
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = hs.Shutdown(shut)
	conns.Wait()
	if e.unix != "" {
		_ = os.Remove(e.unix)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close stops listening and removes the Unix socket (Serve's connections
// end with its context); a nil Endpoint is closed already.
func (e *Endpoint) Close() error {
	if e == nil {
		return nil
	}
	err := e.ln.Close()
	if e.unix != "" {
		_ = os.Remove(e.unix)
	}
	return err
}

// serveHTTP checks an upgrade request, then serves the connection.
func (e *Endpoint) serveHTTP(w http.ResponseWriter, r *http.Request) {
	// Browsers always send Origin on a WebSocket upgrade and Codex's
	// clients never do: refusing it keeps web pages (and DNS rebinding)
	// away from a loopback server that runs commands.
	if r.Header.Get("Origin") != "" {
		http.Error(w, "app-server: connections from web pages (with an Origin header) are refused", http.StatusForbidden)
		return
	}
	if e.opts.Token != "" && !bearerMatches(r.Header.Get("Authorization"), e.opts.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="app-server"`)
		http.Error(w, "app-server: missing or wrong bearer token", http.StatusUnauthorized)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "app-server: this endpoint speaks the app-server protocol over WebSocket (codex --remote ws://...)", http.StatusUpgradeRequired)
		return
	}
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
	default:
		http.Error(w, "app-server: too many connections", http.StatusServiceUnavailable)
		return
	}
	e.serveWebSocket(w, r)
}
