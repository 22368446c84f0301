package mcpclient_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfRequested()
	os.Exit(m.Run())
}

func stdio(name string, argv []string) mcpclient.Server {
	return mcpclient.Server{Name: name, Command: argv[0], Args: argv[1:]}
}

func newPool(t *testing.T, size int, sec mcpclient.Secrets) *mcpclient.Pool {
	p := mcpclient.NewPool(size, sec)
	t.Cleanup(p.Close)
	return p
}

func call(t *testing.T, p *mcpclient.Pool, s mcpclient.Server, tool, args string) mcpclient.Result {
	t.Helper()
	res, err := p.CallTool(context.Background(), "th", s, tool, json.RawMessage(args), 0)
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	return res
}

func toolNames(tools []mcpclient.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

func TestEverythingListsToolsWithSchemas(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("everything", mcptest.Everything(t))
	tools, err := p.ListTools(context.Background(), "th", srv)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Join(toolNames(tools), ",")
	for _, want := range []string{"echo", "get-sum", "get-env", "trigger-long-running-operation"} {
		if !strings.Contains(","+names+",", ","+want+",") {
			t.Errorf("tool %s missing from %s", want, names)
		}
	}
	for _, tl := range tools {
		if tl.Name == "echo" {
			props, _ := tl.InputSchema["properties"].(map[string]any)
			if _, ok := props["message"]; !ok || tl.InputSchema["type"] != "object" {
				t.Errorf("echo schema not passed through: %v", tl.InputSchema)
			}
		}
	}
}

func TestEverythingFilters(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("everything", mcptest.Everything(t))
	srv.EnabledTools = []string{"echo", "get-sum", "get-env"}
	srv.DisabledTools = []string{"get-env"}
	tools, err := p.ListTools(context.Background(), "th", srv)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(tools), ","); got != "echo,get-sum" {
		t.Errorf("filtered tools = %s, want echo,get-sum", got)
	}
}

func TestEverythingCallsAndErrors(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("everything", mcptest.Everything(t))
	if res := call(t, p, srv, "echo", `{"message":"hello there"}`); res.IsError || !strings.Contains(res.Text, "hello there") {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, p, srv, "get-sum", `{"a":2,"b":40}`); res.IsError || !strings.Contains(res.Text, "42") {
		t.Errorf("get-sum: %+v", res)
	}
	// Arguments that do not match the schema: the server says so.
	if res := call(t, p, srv, "echo", `{"msg":1}`); !res.IsError || !strings.Contains(res.Text, `mcp server "everything"`) {
		t.Errorf("bad arguments: %+v", res)
	}
	if res := call(t, p, srv, "no-such-tool", `{}`); !res.IsError || !strings.Contains(res.Text, `mcp server "everything"`) {
		t.Errorf("unknown tool: %+v", res)
	}
	for _, bad := range []string{`{"message":`, `["a"]`, `"text"`} {
		if res := call(t, p, srv, "echo", bad); !res.IsError || !strings.Contains(res.Text, `mcp server "everything": tool "echo" was not called: its arguments must be a JSON object`) {
			t.Errorf("arguments %s: %+v", bad, res)
		}
	}
	if p.Len() != 1 {
		t.Errorf("sessions = %d, want 1 (reused)", p.Len())
	}
}

func TestEverythingToolTimeoutThenReconnects(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("everything", mcptest.Everything(t))
	srv.ToolTimeout = time.Second
	start := time.Now()
	res := call(t, p, srv, "trigger-long-running-operation", `{"duration":30,"steps":3}`)
	if !res.IsError || !strings.Contains(res.Text, `mcp server "everything"`) || !strings.Contains(res.Text, "timed out after 1s") {
		t.Errorf("long operation: %+v", res)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the timeout took %s", d)
	}
	if res := call(t, p, srv, "echo", `{"message":"after"}`); res.IsError || !strings.Contains(res.Text, "after") {
		t.Errorf("echo after a timeout: %+v", res)
	}
}

func TestEverythingOutputRedactsSecretEnv(t *testing.T) {
	const secret = "s3cret-f00-bar-baz"
	p := newPool(t, 4, mcpclient.Secrets{Env: map[string]map[string]string{"everything": {"MY_API_TOKEN": secret}}})
	srv := stdio("everything", mcptest.Everything(t))
	srv.Env = []string{"MY_API_TOKEN"}
	res := call(t, p, srv, "get-env", `{}`)
	if res.IsError || !strings.Contains(res.Text, "MY_API_TOKEN") {
		t.Fatalf("get-env: %+v", res)
	}
	if strings.Contains(res.Text, secret) || !strings.Contains(res.Text, mcpclient.Redacted) {
		t.Errorf("the secret is not redacted: %s", res.Text)
	}
	// The worker's own secrets are not passed to the server.
	t.Setenv("OPENAI_API_KEY", "sk-worker-secret-value")
	p2 := newPool(t, 4, mcpclient.Secrets{Env: map[string]map[string]string{"everything": {"MY_API_TOKEN": secret}}})
	if res := call(t, p2, srv, "get-env", `{}`); strings.Contains(res.Text, "sk-worker-secret-value") || strings.Contains(res.Text, "OPENAI_API_KEY") {
		t.Errorf("the worker's environment leaked to the server: %s", res.Text)
	}
}

func TestServerCrashMidCallThenReconnects(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("crashy", mcptest.StdioServer(t))
	if res := call(t, p, srv, "echo", `{"message":"one"}`); res.IsError || res.Text != "echo: one" {
		t.Fatalf("echo: %+v", res)
	}
	res := call(t, p, srv, "crash", `{}`)
	if !res.IsError || !strings.Contains(res.Text, `mcp server "crashy"`) || !strings.Contains(res.Text, "restarted at the next call") {
		t.Errorf("crash: %+v", res)
	}
	if !strings.Contains(res.Text, "crashing on purpose") {
		t.Errorf("the stderr tail is missing: %s", res.Text)
	}
	if res := call(t, p, srv, "echo", `{"message":"two"}`); res.IsError || res.Text != "echo: two" {
		t.Errorf("echo after the crash: %+v", res)
	}
}

func TestHugeResultGivesAClearErrorAndTheServerKeepsWorking(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("big", mcptest.StdioServer(t))
	res, err := p.CallTool(context.Background(), "th", srv, "big", json.RawMessage(`{"bytes":52428800}`), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, `mcp server "big": the result of tool "big" is larger than 16 MiB`) || len(res.Text) > 4096+300 {
		t.Errorf("50 MB result: error=%v, %d bytes: %.300s", res.IsError, len(res.Text), res.Text)
	}
	t.Logf("50 MB result: %.300s", res.Text)
	// A result over the output limit but within what the client reads is cut.
	res = call(t, p, srv, "big", `{"bytes":200000}`)
	if res.IsError || !strings.Contains(res.Text, `truncated: 200000 bytes`) || len(res.Text) > mcpclient.DefaultMaxOutput+300 {
		t.Errorf("200 KB result: %d bytes, %.200s", len(res.Text), res.Text[len(res.Text)-200:])
	}
	if res := call(t, p, srv, "echo", `{"message":"still here"}`); res.IsError || res.Text != "echo: still here" {
		t.Errorf("echo after the big result: %+v", res)
	}
}

func TestBadServersNameTheServer(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{Getenv: func(string) string { return "" }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	cases := []struct {
		name string
		srv  mcpclient.Server
		want string
	}{
		{"missing command", mcpclient.Server{Name: "nocmd", Command: "/nonexistent/mcp-server-xyz"}, `mcp server "nocmd" failed to start`},
		{"refused url", mcpclient.Server{Name: "refused", URL: refused}, `mcp server "refused" failed to start`},
		{"unset bearer var", mcpclient.Server{Name: "nobearer", URL: refused, BearerTokenEnvVar: "NO_SUCH_TOKEN_VAR"},
			`mcp server "nobearer": bearer_token_env_var NO_SUCH_TOKEN_VAR is not set`},
		{"env without value", mcpclient.Server{Name: "noenv", Command: "true", Env: []string{"NO_SUCH_VAR_XYZ"}},
			`mcp server "noenv": env variable NO_SUCH_VAR_XYZ has no value`},
		{"exits at once", mcpclient.Server{Name: "quits", Command: "sh", Args: []string{"-c", "echo bye >&2; exit 1"}}, `mcp server "quits" failed to start`},
	}
	for _, c := range cases {
		_, err := p.ListTools(context.Background(), "th", c.srv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ListTools error %v, want %q", c.name, err, c.want)
		}
		res := call(t, p, c.srv, "x", `{}`)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: CallTool %+v, want %q", c.name, res, c.want)
		}
	}
}

func TestStartupTimeout(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := mcpclient.Server{Name: "silent", Command: "sleep", Args: []string{"30"}, StartupTimeout: 500 * time.Millisecond}
	start := time.Now()
	_, err := p.ListTools(context.Background(), "th", srv)
	if err == nil || !strings.Contains(err.Error(), `mcp server "silent" did not start within startup_timeout_sec (500ms)`) {
		t.Errorf("ListTools: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	// Not tried again during the cooldown: the next turn is not held up.
	_, err = p.ListTools(context.Background(), "th", srv)
	if err == nil || !strings.Contains(err.Error(), `ago; it is tried again 1m0s after that`) {
		t.Errorf("ListTools during the cooldown: %v", err)
	}
	// Without a cooldown it is tried (and times out) again.
	p.StartupCooldown = 0
	_, err = p.ListTools(context.Background(), "th", srv)
	if err == nil || !strings.Contains(err.Error(), `did not start within startup_timeout_sec (500ms)`) || strings.Contains(err.Error(), "tried again") {
		t.Errorf("ListTools without a cooldown: %v", err)
	}
}

func TestEvictionClosesSessions(t *testing.T) {
	p := newPool(t, 1, mcpclient.Secrets{})
	a := stdio("a", mcptest.StdioServer(t))
	b := stdio("b", mcptest.StdioServer(t))
	if res := call(t, p, a, "echo", `{"message":"a"}`); res.IsError {
		t.Fatal(res.Text)
	}
	pid, err := strconv.Atoi(call(t, p, a, "pid", `{}`).Text)
	if err != nil {
		t.Fatal(err)
	}
	if res := call(t, p, b, "echo", `{"message":"b"}`); res.IsError {
		t.Fatal(res.Text)
	}
	// a was evicted, and its process ends.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the evicted server's process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p.Len() != 1 {
		t.Errorf("sessions = %d, want 1", p.Len())
	}
	// a was evicted: using it again starts it anew.
	if res := call(t, p, a, "echo", `{"message":"a again"}`); res.IsError || res.Text != "echo: a again" {
		t.Errorf("a again: %+v", res)
	}
}

func TestHTTPBearerToken(t *testing.T) {
	const token = "tok-7d1e9b22c4"
	hs := mcptest.StartHTTP(t, mcptest.HTTPOptions{Token: token})
	env := map[string]string{"GOOD_TOKEN": token, "BAD_TOKEN": "wrong-token-value"}
	p := newPool(t, 4, mcpclient.Secrets{Getenv: func(k string) string { return env[k] }})

	good := mcpclient.Server{Name: "api", URL: hs.URL, BearerTokenEnvVar: "GOOD_TOKEN", HTTPHeaders: map[string]string{"X-Team": "blue"}}
	tools, err := p.ListTools(context.Background(), "th", good)
	if err != nil || len(tools) == 0 {
		t.Fatalf("ListTools with the token: %v %v", tools, err)
	}
	res := call(t, p, good, "header", `{"message":"Authorization"}`)
	if res.IsError || strings.Contains(res.Text, token) || !strings.Contains(res.Text, "Bearer "+mcpclient.Redacted) {
		t.Errorf("the token is not redacted from the output: %+v", res)
	}
	if res := call(t, p, good, "header", `{"message":"X-Team"}`); res.Text != "X-Team: blue" {
		t.Errorf("extra header: %+v", res)
	}
	// A secret header comes from the worker's environment and is redacted.
	env["TEAM_KEY"] = "team-key-5f3a9c"
	keyed := good
	keyed.Name, keyed.EnvHTTPHeaders = "api-keyed", map[string]string{"X-Api-Key": "TEAM_KEY"}
	if res := call(t, p, keyed, "header", `{"message":"X-Api-Key"}`); res.IsError || res.Text != "X-Api-Key: "+mcpclient.Redacted {
		t.Errorf("env http header: %+v", res)
	}
	keyed.Name, keyed.EnvHTTPHeaders = "api-keyless", map[string]string{"X-Api-Key": "NO_SUCH_KEY"}
	if _, err := p.ListTools(context.Background(), "th", keyed); err == nil ||
		!strings.Contains(err.Error(), `mcp server "api-keyless": env_http_headers.X-Api-Key: variable NO_SUCH_KEY is not set`) {
		t.Errorf("unset env http header variable: %v", err)
	}

	bad := mcpclient.Server{Name: "api-bad", URL: hs.URL, BearerTokenEnvVar: "BAD_TOKEN"}
	if _, err := p.ListTools(context.Background(), "th", bad); err == nil || !strings.Contains(err.Error(), `mcp server "api-bad" failed to start`) {
		t.Errorf("wrong token: %v", err)
	} else if strings.Contains(err.Error(), "wrong-token-value") {
		t.Errorf("the error shows the token: %v", err)
	}
	none := mcpclient.Server{Name: "api-none", URL: hs.URL}
	if _, err := p.ListTools(context.Background(), "th", none); err == nil || !strings.Contains(err.Error(), `mcp server "api-none"`) {
		t.Errorf("no token: %v", err)
	}
	unset := mcpclient.Server{Name: "api-unset", URL: hs.URL, BearerTokenEnvVar: "UNSET_TOKEN"}
	if _, err := p.ListTools(context.Background(), "th", unset); err == nil || !strings.Contains(err.Error(), `mcp server "api-unset": bearer_token_env_var UNSET_TOKEN is not set`) {
		t.Errorf("unset token variable: %v", err)
	}
}

func TestHTTPProtocolVersions(t *testing.T) {
	modern := mcptest.StartHTTP(t, mcptest.HTTPOptions{Stateless: true})
	stateful := mcptest.StartHTTP(t, mcptest.HTTPOptions{})
	legacyOnly := mcptest.StartHTTP(t, mcptest.HTTPOptions{Stateless: true, ProtocolVersions: []string{"2025-11-25", "2025-06-18"}})
	cases := []struct {
		name, url, mode string
		want, wantErr   string
	}{
		{"auto on a modern server", modern.URL, "auto", "2026-07-28", ""},
		{"default is auto", modern.URL, "", "2026-07-28", ""},
		{"legacy on a modern server", modern.URL, "legacy", "2025-11-25", ""},
		{"2026-07-28 on a modern server", modern.URL, "2026-07-28", "2026-07-28", ""},
		{"auto falls back", legacyOnly.URL, "auto", "2025-11-25", ""},
		{"legacy on a legacy server", legacyOnly.URL, "legacy", "2025-11-25", ""},
		{"2026-07-28 required", legacyOnly.URL, "2026-07-28", "", `mcp server "v" failed to start: protocol_version is "2026-07-28"`},
		{"auto on a stateful server falls back", stateful.URL, "auto", "2025-11-25", ""},
		{"2026-07-28 on a stateful server", stateful.URL, "2026-07-28", "", `mcp server "v" failed to start: protocol_version is "2026-07-28"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPool(t, 4, mcpclient.Secrets{})
			srv := mcpclient.Server{Name: "v", URL: c.url, ProtocolVersion: c.mode}
			got, err := p.ProtocolVersion(context.Background(), "th", srv)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("got %q, %v; want error %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
			if c.mode == "legacy" {
				fresh := mcptest.StartHTTP(t, mcptest.HTTPOptions{Stateless: true})
				if _, err := newPool(t, 1, mcpclient.Secrets{}).ProtocolVersion(context.Background(), "th", mcpclient.Server{Name: "v", URL: fresh.URL, ProtocolVersion: "legacy"}); err != nil {
					t.Fatal(err)
				}
				for _, v := range fresh.Versions() {
					if v >= "2026-07-28" {
						t.Errorf("legacy mode sent Mcp-Protocol-Version %s", v)
					}
				}
			}
			if res := call(t, p, srv, "echo", `{"message":"v"}`); res.IsError || res.Text != "echo: v" {
				t.Errorf("echo: %+v", res)
			}
		})
	}
}

func TestThreadsDoNotShareSessions(t *testing.T) {
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := stdio("s", mcptest.StdioServer(t))
	pid := func(scope string) string {
		res, err := p.CallTool(context.Background(), scope, srv, "pid", json.RawMessage(`{}`), 0)
		if err != nil || res.IsError {
			t.Fatalf("pid: %+v %v", res, err)
		}
		return res.Text
	}
	a1, b1, a2 := pid("thread-a"), pid("thread-b"), pid("thread-a")
	if a1 == b1 {
		t.Errorf("two threads share the server process %s", a1)
	}
	if a1 != a2 {
		t.Errorf("a thread's second call started a new process (%s, then %s)", a1, a2)
	}
	if p.Len() != 2 {
		t.Errorf("sessions = %d, want 2", p.Len())
	}
}

// A call running on a session that is evicted meanwhile still finishes.
func TestEvictionLetsRunningCallsFinish(t *testing.T) {
	p := newPool(t, 1, mcpclient.Secrets{})
	srv := stdio("s", mcptest.StdioServer(t))
	started := make(chan struct{})
	result := make(chan mcpclient.Result, 1)
	go func() {
		// Start the session first so the call below is in flight when b evicts it.
		res, _ := p.CallTool(context.Background(), "a", srv, "echo", json.RawMessage(`{"message":"warm"}`), 0)
		if res.IsError {
			result <- res
			return
		}
		close(started)
		res, _ = p.CallTool(context.Background(), "a", srv, "sleep", json.RawMessage(`{"ms":1500}`), 0)
		result <- res
	}()
	<-started
	deadline := time.Now().Add(10 * time.Second)
	for p.Busy() != 1 { // the sleep call holds the session
		if time.Now().After(deadline) {
			t.Fatal("the sleep call never took the session")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := call(t, p, srv, "echo", `{"message":"b"}`); res.IsError { // scope "th" evicts scope "a"
		t.Fatal(res.Text)
	}
	if res := <-result; res.IsError || res.Text != "slept" {
		t.Errorf("the call of the evicted session: %+v", res)
	}
}

// An HTTP server that restarted has forgotten the session: the call is
// refused there, so it is made again on a new session.
func TestHTTPServerRestartReconnects(t *testing.T) {
	hs := mcptest.StartHTTP(t, mcptest.HTTPOptions{})
	p := newPool(t, 4, mcpclient.Secrets{})
	srv := mcpclient.Server{Name: "api", URL: hs.URL}
	if res := call(t, p, srv, "echo", `{"message":"one"}`); res.Text != "echo: one" {
		t.Fatalf("echo: %+v", res)
	}
	hs.Restart()
	if res := call(t, p, srv, "echo", `{"message":"two"}`); res.IsError || res.Text != "echo: two" {
		t.Errorf("echo after the restart: %+v", res)
	}
}
