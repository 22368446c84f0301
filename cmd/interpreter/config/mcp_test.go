package config

import (
	"strings"
	"testing"
	"time"
)

func TestMCPServersTyped(t *testing.T) {
	setup(t, `
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { DOCS_TOKEN = "abc123456", LEVEL = "debug" }
cwd = "/tmp"
enabled_tools = ["search"]
startup_timeout_sec = 2.5
tool_timeout_sec = 30
required = true

[mcp_servers.tracker]
url = "https://tracker.example/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
http_headers = { "X-Team" = "blue" }
protocol_version = "legacy"
disabled_tools = ["delete"]
enabled = false
`)
	c, err := Load(Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	list := c.MCPServerList()
	if len(list) != 2 {
		t.Fatalf("servers = %+v", list)
	}
	d, tr := list[0], list[1]
	if d.Name != "docs" || d.Command != "npx" || strings.Join(d.Args, " ") != "-y docs-server" || d.Cwd != "/tmp" ||
		strings.Join(d.Env, ",") != "DOCS_TOKEN,LEVEL" || d.EnvValues["DOCS_TOKEN"] != "abc123456" ||
		strings.Join(d.EnabledTools, ",") != "search" || d.StartupTimeout != 2500*time.Millisecond ||
		d.ToolTimeout != 30*time.Second || !d.Required || !d.Enabled {
		t.Errorf("docs = %+v", d)
	}
	if tr.URL == "" || tr.BearerTokenEnvVar != "TRACKER_TOKEN" || tr.HTTPHeaders["X-Team"] != "blue" ||
		tr.ProtocolVersion != "legacy" || tr.DisabledTools[0] != "delete" || tr.Enabled || tr.EnabledTools != nil {
		t.Errorf("tracker = %+v", tr)
	}
}

func TestMCPServersBadInput(t *testing.T) {
	cases := []struct {
		name, file, want string
	}{
		{"both", "[mcp_servers.s]\ncommand = \"x\"\nurl = \"http://x\"", "mcp_servers.s.command and mcp_servers.s.url"},
		{"neither", "[mcp_servers.s]\nargs = [\"x\"]", "mcp_servers.s: set command"},
		{"command not a string", "[mcp_servers.s]\ncommand = 1", "invalid mcp_servers.s.command: want a string, got int64"},
		{"args not strings", "[mcp_servers.s]\ncommand = \"x\"\nargs = [1]", "invalid mcp_servers.s.args: want a list of strings"},
		{"env value not a string", "[mcp_servers.s]\ncommand = \"x\"\nenv = { A = 1 }", "invalid mcp_servers.s.env.A: want a string"},
		{"timeout not a number", "[mcp_servers.s]\ncommand = \"x\"\ntool_timeout_sec = \"10\"", "invalid mcp_servers.s.tool_timeout_sec: want a number of seconds"},
		{"timeout zero", "[mcp_servers.s]\ncommand = \"x\"\nstartup_timeout_sec = 0", "invalid mcp_servers.s.startup_timeout_sec 0"},
		{"required not a bool", "[mcp_servers.s]\ncommand = \"x\"\nrequired = \"yes\"", "invalid mcp_servers.s.required: want true or false"},
		{"bad protocol", "[mcp_servers.s]\nurl = \"http://x\"\nprotocol_version = \"2025\"", "invalid mcp_servers.s.protocol_version \"2025\""},
		{"bearer on stdio", "[mcp_servers.s]\ncommand = \"x\"\nbearer_token_env_var = \"T\"", "mcp_servers.s.command: bearer_token_env_var"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			setup(t, c.file)
			_, err := Load(Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want %q", err, c.want)
			}
		})
	}
}
