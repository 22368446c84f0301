package exec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// `interpreter mcp add` writes config.toml (keeping what was there), `mcp
// list` starts each server and shows its status and tools, `mcp get` one,
// `mcp remove` takes one out; then `exec` offers the server's tools and
// the fake model calls one through the built binary's worker.
func TestMCPAddListAndExecCallsATool(t *testing.T) {
	const secret = "s3cret-e2e-91ab7f"
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{
			{Name: "mcp__everything__echo", Arguments: json.RawMessage(`{"message":"hello through mcp"}`)},
			{Name: "mcp__everything__get-env", Arguments: json.RawMessage(`{}`)},
		}},
		{Text: "the server answered"},
	}}}})
	cfgPath := filepath.Join(e.Home, "config.toml")
	if err := os.WriteFile(cfgPath, []byte("# kept as written\nmax_steps = 50\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(want int, args ...string) *e2etest.Proc {
		t.Helper()
		p := e.Start(args...)
		if code := p.Wait(60 * time.Second); code != want {
			t.Fatalf("%v exited %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, p.Stdout, p.Stderr)
		}
		return p
	}
	everything := mcptest.Everything(t)
	run(0, append([]string{"mcp", "add", "everything", "--env", "DOCS_TOKEN=" + secret, "--"}, everything...)...)
	if p := run(0, "mcp", "add", "broken", "--", "/nonexistent/mcp-server"); !strings.Contains(p.Stderr.String(), "warning: /nonexistent/mcp-server is not found here") {
		t.Errorf("mcp add of a missing command gave no warning; stderr:\n%s", p.Stderr)
	}
	run(0, "mcp", "add", "api", "--url", "http://127.0.0.1:1/mcp", "--bearer-token-env-var", "NO_SUCH_TOKEN_VAR_E2E")
	text, _ := os.ReadFile(cfgPath)
	text = append(text, "\n[mcp_servers.off]\ncommand = \"/nonexistent/off\"\nenabled = false\n"...)
	if err := os.WriteFile(cfgPath, text, 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "# kept as written\nmax_steps = 50\n") || !strings.Contains(string(text), "[mcp_servers.everything]") {
		t.Fatalf("config.toml:\n%s", text)
	}

	list := run(0, "mcp", "list", "--json")
	var servers []struct {
		Name   string   `json:"name"`
		Status string   `json:"status"`
		Error  string   `json:"error"`
		Tools  []string `json:"tools"`
		Env    []string `json:"env"`
	}
	if err := json.Unmarshal([]byte(list.Stdout.String()), &servers); err != nil || len(servers) != 4 {
		t.Fatalf("mcp list --json: %v\n%s", err, list.Stdout)
	}
	for _, s := range servers {
		switch s.Name {
		case "everything":
			if s.Status != "ok" || !strings.Contains(strings.Join(s.Tools, ","), "echo") || strings.Join(s.Env, ",") != "DOCS_TOKEN" {
				t.Errorf("everything: %+v", s)
			}
		case "broken":
			if s.Status != "failed" || !strings.Contains(s.Error, `mcp server "broken" failed to start`) {
				t.Errorf("broken: %+v", s)
			}
		case "off":
			if s.Status != "disabled" || s.Error != "" {
				t.Errorf("off: %+v", s)
			}
		case "api":
			if s.Status != "failed" || !strings.Contains(s.Error, `mcp server "api": bearer_token_env_var NO_SUCH_TOKEN_VAR_E2E is not set`) {
				t.Errorf("api: %+v", s)
			}
		}
	}
	if strings.Contains(list.Stdout.String(), secret) {
		t.Errorf("mcp list shows the secret")
	}
	human := run(0, "mcp", "list")
	if !strings.Contains(human.Stdout.String(), "failed: mcp server \"broken\"") {
		t.Errorf("mcp list:\n%s", human.Stdout)
	}
	get := run(0, "mcp", "get", "everything")
	if !strings.Contains(get.Stdout.String(), "status: ok") || !strings.Contains(get.Stdout.String(), "env: DOCS_TOKEN=*****") || strings.Contains(get.Stdout.String(), secret) {
		t.Errorf("mcp get:\n%s", get.Stdout)
	}
	run(1, "mcp", "get", "nope")
	run(0, "mcp", "remove", "broken")
	run(0, "mcp", "remove", "api")
	run(1, "mcp", "remove", "broken")

	dev := e.StartDev()
	defer dev.Kill()
	ex := e.Exec("--json", "echo something")
	if code := ex.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstdout:\n%s\nstderr:\n%s", code, ex.Stdout, ex.Stderr)
	}
	var call map[string]any
	for _, it := range e2etest.CompletedItems(e2etest.JSONLines(t, ex.Stdout.String())) {
		if it["type"] == "mcp_tool_call" && it["tool"] == "echo" {
			call = it
		}
	}
	if call == nil || call["server"] != "everything" || call["status"] != "completed" ||
		!strings.Contains(ex.Stdout.String(), "Echo: hello through mcp") {
		t.Fatalf("no completed mcp_tool_call item:\n%s", ex.Stdout)
	}
	if args, _ := call["arguments"].(map[string]any); args["message"] != "hello through mcp" {
		t.Errorf("arguments: %v", call["arguments"])
	}
	reqs := e.Model.Server.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "Echo: hello through mcp") || !strings.Contains(last, "DOCS_TOKEN") || strings.Contains(last, secret) {
		t.Errorf("the model's view of the results:\n%.3000s", last)
	}
	if strings.Contains(ex.Stdout.String(), secret) || strings.Contains(dev.Stdout.String()+dev.Stderr.String(), secret) {
		t.Errorf("the secret was printed")
	}
}

// Bad MCP configuration is refused before anything starts, naming the
// server and field.
func TestMCPBadConfigIsRefused(t *testing.T) {
	cases := []struct {
		name, config string
		args         []string
		code         int
		want         string
	}{
		{"command and url", "[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://b\"\n", []string{"exec", "--provider", "demo", "hi"}, 2, "mcp_servers.x.command and mcp_servers.x.url"},
		{"neither", "[mcp_servers.x]\nargs = []\n", []string{"mcp", "list"}, 2, "mcp_servers.x: set command"},
		{"wrong type", "[mcp_servers.x]\ncommand = \"a\"\nrequired = \"yes\"\n", []string{"exec", "--provider", "demo", "hi"}, 2, "invalid mcp_servers.x.required"},
		{"unknown key strict", "[mcp_servers.x]\ncommand = \"a\"\ncomand = \"b\"\n", []string{"--strict-config", "exec", "--provider", "demo", "hi"}, 2, `"mcp_servers.x.comand"`},
		{"add with both", "", []string{"mcp", "add", "x", "--url", "http://a", "--", "cmd"}, 2, "not both"},
		{"add with a bad name", "", []string{"mcp", "add", "a.b", "--", "cmd"}, 2, "invalid MCP server name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(e.Home, "config.toml"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := e.Start(tc.args...)
			if code := p.Wait(30 * time.Second); code != tc.code || !strings.Contains(p.Stderr.String(), tc.want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nwant it to mention %s", code, tc.code, p.Stderr, tc.want)
			}
		})
	}
}
