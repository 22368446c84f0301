package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Running is a started fake model server.
type Running struct {
	Server *Server
	srv    *http.Server
	addr   net.Addr
	done   chan error // receives the result of http.Server.Serve
}

// Start listens on addr (e.g. "127.0.0.1:0") and serves script in a
// goroutine until Close.
func Start(addr string, script *Script) (*Running, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s := New(script)
	r := &Running{
		Server: s,
		srv:    &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second},
		addr:   ln.Addr(),
		done:   make(chan error, 1),
	}
	go func() { r.done <- r.srv.Serve(ln) }()
	return r, nil
}

// BaseURL is the server root, e.g. "http://127.0.0.1:PORT". Give it to the
// Anthropic SDK (which appends /v1/messages).
func (r *Running) BaseURL() string {
	host := "127.0.0.1"
	port := ""
	if tcp, ok := r.addr.(*net.TCPAddr); ok {
		if !tcp.IP.IsUnspecified() && tcp.IP != nil {
			host = tcp.IP.String()
		}
		port = fmt.Sprint(tcp.Port)
	} else if h, p, err := net.SplitHostPort(r.addr.String()); err == nil {
		host, port = h, p
	}
	return "http://" + net.JoinHostPort(host, port)
}

// URL is the OpenAI-style base URL, e.g. "http://127.0.0.1:PORT/v1". Give
// it to openai-go (which appends /responses or /chat/completions).
func (r *Running) URL() string { return r.BaseURL() + "/v1" }

// Close stops the server at once, cutting open streams.
func (r *Running) Close() error {
	if err := r.srv.Close(); err != nil {
		return fmt.Errorf("fakemodel: close: %w", err)
	}
	return nil
}

// Serve runs the fake model on addr until ctx is done, then shuts down
// gracefully (open streams get a few seconds). ready, if not nil, is called
// once the server listens, e.g. to print r.URL().
func Serve(ctx context.Context, addr string, script *Script, ready func(r *Running)) error {
	r, err := Start(addr, script)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(r)
	}
	select {
	case err := <-r.done:
		return fmt.Errorf("fakemodel: serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := r.srv.Shutdown(shutdownCtx); err != nil {
		_ = r.srv.Close()
	}
	return nil
}

// FetchRequests gets the requests recorded by a fake model server running
// elsewhere; baseURL may end in /v1 or not.
func FetchRequests(ctx context.Context, baseURL string) ([]Recorded, error) {
	var out []Recorded
	if err := control(ctx, http.MethodGet, baseURL, "/_fake/requests", &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ResetRemote clears the records and counters of a fake model server
// running elsewhere; baseURL may end in /v1 or not.
func ResetRemote(ctx context.Context, baseURL string) error {
	return control(ctx, http.MethodPost, baseURL, "/_fake/reset", nil)
}

func control(ctx context.Context, method, baseURL, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(baseURL, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("fakemodel %s: %w", path, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fakemodel %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fakemodel %s: status %s", path, resp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("fakemodel %s: decode: %w", path, err)
	}
	return nil
}
