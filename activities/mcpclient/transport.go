package mcpclient

import (
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
)

// What a server process or connection is given: its environment, the
// HTTP headers, and the capture of a stdio server's stderr.

// stdioEnv is what a stdio server's process sees: a few harmless variables
// of the worker's environment (not its API keys) and the server's env.
func stdioEnv(extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ"} {
		if _, set := extra[k]; set {
			continue
		}
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header[k] = v
	}
	return t.base.RoundTrip(req)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	eof chan struct{} // closed once the pipe's writers are all gone
}

func newTail(max int) *tail { return &tail{max: max, eof: make(chan struct{})} }

// pipe returns the write end of a pipe whose output t keeps.
func (t *tail) pipe() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		defer close(t.eof)
		defer r.Close()
		_, _ = io.Copy(t, r)
	}()
	return w, nil
}

// awaitStderr waits up to d for the server's stderr to close.
func (s *session) awaitStderr(d time.Duration) {
	if s == nil || s.stderr == nil {
		return
	}
	select {
	case <-s.stderr.eof:
	case <-time.After(d):
	}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
