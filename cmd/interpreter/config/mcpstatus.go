package config

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
)

// MCPStatus is one server as `mcp list` and `mcp get` show it: its
// definition and what starting it found.
type MCPStatus struct {
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

// ProbeMCP starts each enabled server (within its startup timeout) and
// lists its tools; env holds the env values by server name.
func ProbeMCP(ctx context.Context, servers []MCPServer, env map[string]map[string]string) []MCPStatus {
	out := make([]MCPStatus, len(servers))
	var enabled []mcpclient.Server
	var at []int
	for i, s := range servers {
		out[i] = MCPStatus{Name: s.Name, Transport: s.Transport(), Command: s.Command, Args: s.Args, Cwd: s.Cwd, Env: s.Env,
			URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar, HTTPHeaders: s.HTTPHeaders, EnvHTTPHeaders: s.EnvHTTPHeaders, ProtocolVersion: s.ProtocolVersion,
			EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools, Required: s.Required, Enabled: s.Enabled,
			StartupTimeoutSec: s.Startup().Seconds(), ToolTimeoutSec: s.CallTimeout().Seconds(), Tools: []string{}, Status: mcpclient.ProbeDisabled}
		if s.Enabled {
			enabled = append(enabled, s.Server)
			at = append(at, i)
		}
	}
	for j, p := range mcpclient.ProbeTools(ctx, enabled, mcpclient.Secrets{Env: env}) {
		out[at[j]].Status, out[at[j]].Error, out[at[j]].Tools = p.Status, p.Error, p.Tools
	}
	return out
}

// WriteMCPList prints the table of `mcp list`.
func WriteMCPList(w io.Writer, list []MCPStatus) error {
	if len(list) == 0 {
		fmt.Fprintf(w, "No MCP servers configured. Add one with `interpreter mcp add NAME -- COMMAND ARGS...` or `interpreter mcp add NAME --url URL`.\n")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tTARGET\tSTATUS\tTOOLS")
	for _, s := range list {
		status := s.Status
		if s.Error != "" {
			status = "failed: " + oneLineText(s.Error, 160)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Transport, s.target(), status, strings.Join(s.Tools, ", "))
	}
	return tw.Flush()
}

// WriteText prints the server as `mcp get` shows it.
func (s MCPStatus) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s\n  transport: %s\n", s.Name, s.Transport)
	if s.URL != "" {
		fmt.Fprintf(w, "  url: %s\n", s.URL)
		if s.BearerTokenEnvVar != "" {
			fmt.Fprintf(w, "  bearer_token_env_var: %s\n", s.BearerTokenEnvVar)
		}
		for _, k := range sortedKeys(s.HTTPHeaders) {
			fmt.Fprintf(w, "  http header: %s: %s\n", k, s.HTTPHeaders[k])
		}
		for _, k := range sortedKeys(s.EnvHTTPHeaders) {
			fmt.Fprintf(w, "  http header: %s: from $%s\n", k, s.EnvHTTPHeaders[k])
		}
		if s.ProtocolVersion != "" {
			fmt.Fprintf(w, "  protocol_version: %s\n", s.ProtocolVersion)
		}
	} else {
		fmt.Fprintf(w, "  command: %s\n", s.target())
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
}

// target is the URL, or the command line of a stdio server.
func (s MCPStatus) target() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// oneLineText folds whitespace and cuts s after n bytes.
func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
