package config

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
)

// MCPServer is one [mcp_servers.<name>] table, typed and checked.
type MCPServer struct {
	// Server is the definition a thread carries: Env holds only the
	// variable names (sorted).
	mcpclient.Server
	// EnvValues are the values of the env table; they stay on the
	// worker of this process and never enter a thread's history.
	EnvValues map[string]string
	// Enabled is false when the table says enabled = false: the server
	// is kept in the file but not used.
	Enabled bool
}

// MCPServerList returns the configured MCP servers sorted by name.
func (c *Config) MCPServerList() []MCPServer {
	return append([]MCPServer(nil), c.mcp...)
}

// mcpKeys are the keys of an [mcp_servers.<name>] table.
var mcpKeys = map[string]bool{
	"command": true, "args": true, "env": true, "cwd": true,
	"url": true, "bearer_token_env_var": true, "http_headers": true, "env_http_headers": true, "protocol_version": true,
	"enabled_tools": true, "disabled_tools": true, "startup_timeout_sec": true, "tool_timeout_sec": true,
	"required": true, "enabled": true,
}

// ValidMCPName reports whether name is a good name for a new MCP server
// (`interpreter mcp add` takes only these; names in the file are taken as
// they are and sanitized in tool names).
func ValidMCPName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// parseMCPServers types the raw [mcp_servers] tables. Keys that match no
// field are returned (dotted) for the unknown-key check; a value of the
// wrong type or a definition that is not whole is an error naming
// mcp_servers.<name>.<field>.
func parseMCPServers(raw map[string]map[string]any) ([]MCPServer, []string, error) {
	var out []MCPServer
	var unknown []string
	for _, name := range sortedKeys(raw) {
		t := raw[name]
		p := mcpParser{name: name, t: t}
		s := MCPServer{Enabled: true}
		s.Name = name
		s.Command = p.str("command")
		s.Args = p.strs("args")
		s.Cwd = p.str("cwd")
		s.EnvValues = p.table("env")
		s.URL = p.str("url")
		s.BearerTokenEnvVar = p.str("bearer_token_env_var")
		s.HTTPHeaders = p.table("http_headers")
		s.EnvHTTPHeaders = p.table("env_http_headers")
		s.ProtocolVersion = p.str("protocol_version")
		s.EnabledTools = p.strs("enabled_tools")
		if _, ok := t["enabled_tools"]; ok && s.EnabledTools == nil {
			s.EnabledTools = []string{}
		}
		s.DisabledTools = p.strs("disabled_tools")
		s.StartupTimeout = p.seconds("startup_timeout_sec")
		s.ToolTimeout = p.seconds("tool_timeout_sec")
		s.Required = p.boolean("required", false)
		s.Enabled = p.boolean("enabled", true)
		if p.err != nil {
			return nil, nil, p.err
		}
		for k := range s.EnvValues {
			s.Env = append(s.Env, k)
		}
		sort.Strings(s.Env)
		if err := s.Validate(); err != nil {
			return nil, nil, err
		}
		for _, k := range sortedKeys(t) {
			if !mcpKeys[k] {
				unknown = append(unknown, "mcp_servers."+quoteKeyPart(name)+"."+quoteKeyPart(k))
			}
		}
		out = append(out, s)
	}
	return out, unknown, nil
}

type mcpParser struct {
	name string
	t    map[string]any
	err  error
}

func (p *mcpParser) fail(key, want string, v any) {
	if p.err == nil {
		p.err = fmt.Errorf("invalid mcp_servers.%s.%s: want %s, got %T", quoteKeyPart(p.name), key, want, v)
	}
}

func (p *mcpParser) str(key string) string {
	v, ok := p.t[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.fail(key, "a string", v)
	}
	return s
}

func (p *mcpParser) strs(key string) []string {
	v, ok := p.t[key]
	if !ok {
		return nil
	}
	var out []string
	switch l := v.(type) {
	case []any:
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				p.fail(key, "a list of strings", v)
				return nil
			}
			out = append(out, s)
		}
	case []string:
		out = append(out, l...)
	default:
		p.fail(key, "a list of strings", v)
	}
	return out
}

func (p *mcpParser) table(key string) map[string]string {
	v, ok := p.t[key]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(key, "a table of strings", v)
		return nil
	}
	out := map[string]string{}
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			p.fail(key+"."+quoteKeyPart(k), "a string", e)
			return nil
		}
		out[k] = s
	}
	return out
}

func (p *mcpParser) seconds(key string) time.Duration {
	v, ok := p.t[key]
	if !ok {
		return 0
	}
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	case int:
		f = float64(n)
	default:
		p.fail(key, "a number of seconds", v)
		return 0
	}
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > 24*3600 {
		if p.err == nil {
			p.err = fmt.Errorf("invalid mcp_servers.%s.%s %v: want a number of seconds above 0 and at most a day", quoteKeyPart(p.name), key, v)
		}
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

func (p *mcpParser) boolean(key string, def bool) bool {
	v, ok := p.t[key]
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		p.fail(key, "true or false", v)
		return def
	}
	return b
}
