package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// McpCmd groups the commands that manage external MCP servers.
type McpCmd struct {
	Add    McpAddCmd    `cmd:"" help:"Add an MCP server to config.toml: add NAME -- COMMAND ARGS... (stdio) or add NAME --url URL (streamable HTTP)."`
	List   McpListCmd   `cmd:"" help:"List the MCP servers with their status and tools (each is started to ask)."`
	Get    McpGetCmd    `cmd:"" help:"Show one MCP server's definition, status and tools."`
	Remove McpRemoveCmd `cmd:"" help:"Remove an MCP server from config.toml."`
}

// McpAddCmd adds a server.
type McpAddCmd struct {
	Name              string   `arg:"" help:"Server name (letters, digits, '_' and '-')."`
	Command           []string `arg:"" optional:"" passthrough:"" help:"After --: the command that starts a stdio server, and its arguments."`
	URL               string   `name:"url" help:"Endpoint of a streamable HTTP server."`
	BearerTokenEnvVar string   `name:"bearer-token-env-var" help:"Environment variable holding the bearer token (streamable HTTP)." placeholder:"VAR"`
	Env               []string `name:"env" help:"KEY=VALUE set for a stdio server (repeatable)." placeholder:"KEY=VALUE"`
	Required          bool     `help:"A turn fails when this server does not start."`
}

// Run adds the server, replacing one of the same name.
func (m *McpAddCmd) Run(g *Globals, stdio Stdio) error {
	cmd := m.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	table, err := config.MCPAdd{Name: m.Name, Command: cmd, URL: m.URL, BearerTokenEnvVar: m.BearerTokenEnvVar, Env: m.Env, Required: m.Required}.Table()
	if err != nil {
		return exitf(2, "%v", err)
	}
	path := config.Path(g.Home)
	text, err := config.ReadText(path)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if text, err = config.AddMCPTable(text, m.Name, table); err != nil {
		return exitf(1, "%v", err)
	}
	if err := g.writeConfig(path, text); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Out, "Added MCP server %s to %s\n", m.Name, path)
	if len(cmd) > 0 {
		// Kept anyway: the workers that start it may have it where this
		// shell does not.
		if _, err := exec.LookPath(cmd[0]); err != nil {
			fmt.Fprintf(stdio.Err, "warning: %s is not found here (%v); the server will fail to start on a host without it (check with `interpreter mcp get %s`)\n", cmd[0], err, m.Name)
		}
	}
	return nil
}

// McpRemoveCmd removes a server.
type McpRemoveCmd struct {
	Name string `arg:"" help:"Server name."`
}

// Run removes the server's table (and its sub-tables) from config.toml.
func (m *McpRemoveCmd) Run(g *Globals, stdio Stdio) error {
	path := config.Path(g.Home)
	text, err := config.ReadText(path)
	if err != nil {
		return exitf(1, "%v", err)
	}
	out, found, err := config.RemoveMCPTable(text, m.Name)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if !found {
		return exitf(1, "no MCP server named %q in %s", m.Name, path)
	}
	if err := g.writeConfig(path, out); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Out, "Removed MCP server %s from %s\n", m.Name, path)
	return nil
}

// McpListCmd lists the servers.
type McpListCmd struct {
	JSON bool `name:"json" help:"Print one JSON array."`
}

// mcpStatus is one server as list and get show it.
type mcpStatus struct {
	Name              string            `json:"name"`
	Transport         string            `json:"transport"`
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Cwd               string            `json:"cwd,omitempty"`
	Env               []string          `json:"env,omitempty"`
	URL               string            `json:"url,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	HTTPHeaders       map[string]string `json:"http_headers,omitempty"`
	EnvHTTPHeaders    map[string]string `json:"env_http_headers,omitempty"`
	ProtocolVersion   string            `json:"protocol_version,omitempty"`
	EnabledTools      []string          `json:"enabled_tools,omitempty"`
	DisabledTools     []string          `json:"disabled_tools,omitempty"`
	StartupTimeoutSec float64           `json:"startup_timeout_sec"`
	ToolTimeoutSec    float64           `json:"tool_timeout_sec"`
	Required          bool              `json:"required"`
	Enabled           bool              `json:"enabled"`
	// Status is ok, failed or disabled.
	Status string   `json:"status"`
	Error  string   `json:"error,omitempty"`
	Tools  []string `json:"tools"`
}

// probeMCP starts each enabled server (within its startup timeout) and lists
// its tools.
func probeMCP(ctx context.Context, servers []config.MCPServer, env map[string]map[string]string) []mcpStatus {
	pool := mcpclient.NewPool(len(servers)+1, mcpclient.Secrets{Env: env})
	defer pool.Close()
	out := make([]mcpStatus, len(servers))
	done := make(chan struct{})
	for i, s := range servers {
		st := mcpStatus{Name: s.Name, Transport: s.Transport(), Command: s.Command, Args: s.Args, Cwd: s.Cwd, Env: s.Env,
			URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar, HTTPHeaders: s.HTTPHeaders, EnvHTTPHeaders: s.EnvHTTPHeaders, ProtocolVersion: s.ProtocolVersion,
			EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools, Required: s.Required, Enabled: s.Enabled,
			StartupTimeoutSec: s.Startup().Seconds(), ToolTimeoutSec: s.CallTimeout().Seconds(), Tools: []string{}}
		out[i] = st
		go func() {
			defer func() { done <- struct{}{} }()
			if !s.Enabled {
				out[i].Status = "disabled"
				return
			}
			tools, err := pool.ListTools(ctx, "cli", s.Server)
			if err != nil {
				out[i].Status, out[i].Error = "failed", err.Error()
				return
			}
			out[i].Status = "ok"
			for _, t := range tools {
				out[i].Tools = append(out[i].Tools, t.Name)
			}
		}()
	}
	for range servers {
		<-done
	}
	return out
}

// Run lists the servers.
func (m *McpListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	list := probeMCP(ctx, cfg.MCPServerList(), cfg.MCPEnv())
	if m.JSON {
		return json.NewEncoder(stdio.Out).Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintf(stdio.Out, "No MCP servers configured. Add one with `interpreter mcp add NAME -- COMMAND ARGS...` or `interpreter mcp add NAME --url URL`.\n")
		return nil
	}
	tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tTARGET\tSTATUS\tTOOLS")
	for _, s := range list {
		status := s.Status
		if s.Error != "" {
			status = "failed: " + oneLineText(s.Error, 160)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Transport, target(s), status, strings.Join(s.Tools, ", "))
	}
	return tw.Flush()
}

func target(s mcpStatus) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// McpGetCmd shows one server.
type McpGetCmd struct {
	Name string `arg:"" help:"Server name."`
	JSON bool   `name:"json" help:"Print one JSON object."`
}

// Run shows the server.
func (m *McpGetCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	var found []config.MCPServer
	for _, s := range cfg.MCPServerList() {
		if s.Name == m.Name {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return exitf(1, "no MCP server named %q (see `interpreter mcp list`)", m.Name)
	}
	s := probeMCP(ctx, found, cfg.MCPEnv())[0]
	if m.JSON {
		return json.NewEncoder(stdio.Out).Encode(s)
	}
	w := stdio.Out
	fmt.Fprintf(w, "%s\n  transport: %s\n", s.Name, s.Transport)
	if s.URL != "" {
		fmt.Fprintf(w, "  url: %s\n", s.URL)
		if s.BearerTokenEnvVar != "" {
			fmt.Fprintf(w, "  bearer_token_env_var: %s\n", s.BearerTokenEnvVar)
		}
		for _, k := range sortedStrings(s.HTTPHeaders) {
			fmt.Fprintf(w, "  http header: %s: %s\n", k, s.HTTPHeaders[k])
		}
		for _, k := range sortedStrings(s.EnvHTTPHeaders) {
			fmt.Fprintf(w, "  http header: %s: from $%s\n", k, s.EnvHTTPHeaders[k])
		}
		if s.ProtocolVersion != "" {
			fmt.Fprintf(w, "  protocol_version: %s\n", s.ProtocolVersion)
		}
	} else {
		fmt.Fprintf(w, "  command: %s\n", target(s))
		if s.Cwd != "" {
			fmt.Fprintf(w, "  cwd: %s\n", s.Cwd)
		}
		for _, k := range s.Env {
			fmt.Fprintf(w, "  env: %s=*****\n", k)
		}
	}
	if s.EnabledTools != nil {
		fmt.Fprintf(w, "  enabled_tools: %s\n", strings.Join(s.EnabledTools, ", "))
	}
	if len(s.DisabledTools) > 0 {
		fmt.Fprintf(w, "  disabled_tools: %s\n", strings.Join(s.DisabledTools, ", "))
	}
	fmt.Fprintf(w, "  startup_timeout_sec: %g\n  tool_timeout_sec: %g\n  required: %v\n  enabled: %v\n",
		s.StartupTimeoutSec, s.ToolTimeoutSec, s.Required, s.Enabled)
	status := s.Status
	if s.Error != "" {
		status = "failed: " + s.Error
	}
	fmt.Fprintf(w, "  status: %s\n  tools: %s\n", status, strings.Join(s.Tools, ", "))
	return nil
}

func sortedStrings(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeConfig writes config.toml and loads it again; when it no longer
// loads, the old file is put back.
func (g *Globals) writeConfig(path, text string) error {
	if err := config.WriteText(path, text, func() error { _, err := g.load(nil); return err }); err != nil {
		return exitf(1, "%v", err)
	}
	return nil
}
