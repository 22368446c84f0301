package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"

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

// Run lists the servers.
func (m *McpListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	list := config.ProbeMCP(ctx, cfg.MCPServerList(), cfg.MCPEnv())
	if m.JSON {
		return json.NewEncoder(stdio.Out).Encode(list)
	}
	return config.WriteMCPList(stdio.Out, list)
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
	s := config.ProbeMCP(ctx, found, cfg.MCPEnv())[0]
	if m.JSON {
		return json.NewEncoder(stdio.Out).Encode(s)
	}
	s.WriteText(stdio.Out)
	return nil
}

// writeConfig writes config.toml and loads it again; when it no longer
// loads, the old file is put back.
func (g *Globals) writeConfig(path, text string) error {
	if err := config.WriteText(path, text, func() error { _, err := g.load(nil); return err }); err != nil {
		return exitf(1, "%v", err)
	}
	return nil
}
