// Package mcptest provides MCP servers for tests of the MCP client: the
// reference server-everything from npm (installed by `npm ci --prefix
// e2e/mcpservers`), a small stdio server run by re-executing the test
// binary (tools that crash, sleep or return 50 MB), and an in-process
// streamable HTTP server of the go-sdk that checks a bearer token.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Everything returns the argv that starts @modelcontextprotocol/server-everything
// over stdio. It fails the test when the package is not installed.
func Everything(tb testing.TB) []string {
	tb.Helper()
	root, err := repoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	script := filepath.Join(root, "e2e", "mcpservers", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		tb.Fatalf("server-everything is not installed (%v): run `npm ci --prefix e2e/mcpservers` first", err)
	}
	return []string{"node", script, "stdio"}
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// serverArg is the first argument that makes a test binary run [Serve].
const serverArg = "mcptest-stdio-server"

// StdioServer returns the argv that runs the test server of this package
// in the running test binary; its TestMain must call [ServeIfRequested].
func StdioServer(tb testing.TB) []string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return []string{exe, serverArg}
}

// ServeIfRequested runs the stdio test server and exits when the process
// was started by [StdioServer]; otherwise it returns at once.
func ServeIfRequested() {
	if len(os.Args) < 2 || os.Args[1] != serverArg {
		return
	}
	if err := NewServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to echo"`
}

type sizeArgs struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes to return"`
}

type sleepArgs struct {
	Ms int `json:"ms" jsonschema:"milliseconds to sleep"`
}

// NewServer is the test server: echo, crash (the process exits during the
// call), big (a text result of the given size), sleep, env (a variable's
// value), pid and header (a request header's value, over HTTP).
func NewServer(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, opts)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes a message."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Message), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server process during the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text of the given size."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sizeArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sleepArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			case <-ctx.Done():
			}
			return text("slept"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Returns an environment variable's value."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Message + "=" + os.Getenv(in.Message)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "header", Description: "Returns a request header's value."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			v := ""
			if req.Extra != nil && req.Extra.Header != nil {
				v = req.Extra.Header.Get(in.Message)
			}
			return text(in.Message + ": " + v), nil, nil
		})
	return s
}

// HTTPServer is an in-process streamable HTTP MCP server.
type HTTPServer struct {
	URL string
	mu  sync.Mutex
	// handler serves requests; Restart replaces it (its sessions are lost).
	handler    http.Handler
	newHandler func() http.Handler
	// versions are the Mcp-Protocol-Version headers seen, in order.
	versions []string
}

// Versions returns the protocol versions the client sent in headers.
func (h *HTTPServer) Versions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.versions...)
}

// HTTPOptions shape [StartHTTP].
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry.
	Token string
	// ProtocolVersions the server supports (nil: the SDK's).
	ProtocolVersions []string
	// Stateless serves without sessions; the go-sdk's handler speaks the
	// 2026-07-28 protocol only in this mode (a stateful one answers it
	// with "unsupported protocol version" and the legacy versions).
	Stateless bool
}

// StartHTTP serves [NewServer] over streamable HTTP until the test ends.
func StartHTTP(tb testing.TB, o HTTPOptions) *HTTPServer {
	tb.Helper()
	srv := NewServer(&mcp.ServerOptions{SupportedProtocolVersions: o.ProtocolVersions})
	newHandler := func() http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: o.Stateless})
	}
	h := &HTTPServer{handler: newHandler(), newHandler: newHandler}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
			h.mu.Lock()
			h.versions = append(h.versions, v)
			h.mu.Unlock()
		}
		if o.Token != "" && r.Header.Get("Authorization") != "Bearer "+o.Token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.mu.Lock()
		handler := h.handler
		h.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	tb.Cleanup(ts.Close)
	h.URL = ts.URL
	return h
}

// BuildServer builds cmd mcptest-server (the test server as its own
// program) into a temporary directory and returns its path.
func BuildServer(tb testing.TB) string {
	tb.Helper()
	root, err := repoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(tb.TempDir(), "mcptest-server")
	cmd := exec.Command("go", "build", "-o", bin, "./dev/mcptest/mcptest-server")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building mcptest-server: %v\n%s", err, out)
	}
	return bin
}

// Restart forgets every session, as a server that restarted does.
func (h *HTTPServer) Restart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handler = h.newHandler()
}
