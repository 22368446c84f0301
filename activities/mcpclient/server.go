// Package mcpclient connects to external MCP servers (issue trackers, docs,
// databases, ...) and offers their tools to the model: server definitions
// and their checks, the names the model sees, tool filters, a bounded cache
// of live sessions, and the bounding and redaction of what a tool returns.
//
// It carries no secret values in the types a workflow sees: a [Server]
// names environment variables, and their values are read on the worker
// that connects (see [Secrets]).
package mcpclient

import (
	"fmt"
	"slices"
	"time"
)

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "streamable_http"
)

// Values of protocol_version (streamable_http servers).
const (
	// ProtocolAuto offers the newest version the SDK knows (2026-07-28,
	// the stateless server/discover handshake) and falls back to the
	// initialize handshake when the server does not speak it.
	ProtocolAuto = "auto"
	// ProtocolLegacy uses only the initialize handshake, offering
	// 2025-11-25; the server may answer with an older version it prefers.
	ProtocolLegacy = "legacy"
	// Protocol20260728 requires the 2026-07-28 protocol: a server that
	// does not speak it fails to start instead of falling back.
	Protocol20260728 = "2026-07-28"

	legacyVersion = "2025-11-25"
)

// ProtocolVersions lists the valid protocol_version values.
var ProtocolVersions = []string{ProtocolAuto, ProtocolLegacy, Protocol20260728}

// Defaults, as Codex has them.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// Server is one MCP server a thread uses, as the thread's config carries it
// into workflow history: no secret values, only the names of the variables
// holding them.
type Server struct {
	Name string `json:"name"`

	// stdio: the command to start, its arguments and working directory.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// Env names the variables set for the command; their values come from
	// the worker's own configuration or environment ([Secrets]).
	Env []string `json:"env,omitempty"`

	// streamable_http: the endpoint, the variable holding a bearer token,
	// extra headers (not secret: use BearerTokenEnvVar for secrets) and
	// the protocol version ([ProtocolVersions]; "" is auto).
	URL               string            `json:"url,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	HTTPHeaders       map[string]string `json:"http_headers,omitempty"`
	// EnvHTTPHeaders are headers whose values are secret: header name to
	// the variable holding the value, read on the worker like the bearer
	// token (and redacted from output like it).
	EnvHTTPHeaders  map[string]string `json:"env_http_headers,omitempty"`
	ProtocolVersion string            `json:"protocol_version,omitempty"`

	// EnabledTools, when not nil, is an allow list of the server's tool
	// names (an empty list allows none); DisabledTools is a deny list
	// applied after it. No omitempty: nil and empty differ.
	EnabledTools  []string `json:"enabled_tools"`
	DisabledTools []string `json:"disabled_tools,omitempty"`

	StartupTimeout time.Duration `json:"startup_timeout,omitempty"`
	ToolTimeout    time.Duration `json:"tool_timeout,omitempty"`
	// Required: a server that fails to start fails the turn; an optional
	// one gives a warning and the turn goes on without its tools.
	Required bool `json:"required,omitempty"`
}

// Transport returns the server's transport.
func (s Server) Transport() string {
	if s.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// Startup returns the startup timeout, defaulted.
func (s Server) Startup() time.Duration {
	if s.StartupTimeout > 0 {
		return s.StartupTimeout
	}
	return DefaultStartupTimeout
}

// CallTimeout returns the tool call timeout, defaulted.
func (s Server) CallTimeout() time.Duration {
	if s.ToolTimeout > 0 {
		return s.ToolTimeout
	}
	return DefaultToolTimeout
}

// Validate checks a definition; errors name mcp_servers.<name>.<field>.
func (s Server) Validate() error {
	key := func(field string) string { return "mcp_servers." + s.Name + "." + field }
	if s.Name == "" {
		return fmt.Errorf("mcp_servers: a server needs a name")
	}
	switch {
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("%s and %s: a server has either a command (stdio) or a url (streamable_http), not both", key("command"), key("url"))
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("mcp_servers.%s: set command (a stdio server) or url (a streamable_http server)", s.Name)
	}
	if s.URL != "" {
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			return fmt.Errorf("%s: args, env and cwd belong to stdio servers, and this one has a url", key("url"))
		}
		if s.ProtocolVersion != "" && !slices.Contains(ProtocolVersions, s.ProtocolVersion) {
			return fmt.Errorf("invalid %s %q: want one of %v", key("protocol_version"), s.ProtocolVersion, ProtocolVersions)
		}
	} else if s.BearerTokenEnvVar != "" || len(s.HTTPHeaders) > 0 || len(s.EnvHTTPHeaders) > 0 || s.ProtocolVersion != "" {
		return fmt.Errorf("%s: bearer_token_env_var, http_headers, env_http_headers and protocol_version belong to streamable_http servers, and this one has a command", key("command"))
	}
	if s.StartupTimeout < 0 {
		return fmt.Errorf("invalid %s: must not be negative", key("startup_timeout_sec"))
	}
	if s.ToolTimeout < 0 {
		return fmt.Errorf("invalid %s: must not be negative", key("tool_timeout_sec"))
	}
	return nil
}

// Allowed reports whether the filters let a tool (by its name on the
// server) through.
func (s Server) Allowed(tool string) bool {
	if s.EnabledTools != nil && !slices.Contains(s.EnabledTools, tool) {
		return false
	}
	return !slices.Contains(s.DisabledTools, tool)
}

// Merge returns the servers of base with extra added; an extra server
// whose name is already taken replaces nothing and is reported. It is
// where servers from other sources (a skill's dependencies) join a turn's.
func Merge(base, extra []Server) ([]Server, []string) {
	out := append([]Server(nil), base...)
	var dropped []string
	for _, e := range extra {
		if slices.ContainsFunc(out, func(s Server) bool { return s.Name == e.Name }) {
			dropped = append(dropped, fmt.Sprintf("mcp server %q is defined twice; the first definition is used", e.Name))
			continue
		}
		out = append(out, e)
	}
	return out, dropped
}
