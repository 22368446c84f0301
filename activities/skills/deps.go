package skills

import (
	"fmt"
	"slices"
)

// ConflictError: two enabled skills declare the same MCP server
// differently.
type ConflictError struct {
	Server string
	// First and Second are the skills, in discovery order.
	First, Second string
	// Differs names what differs (the connection, the description, the
	// tool filters).
	Differs string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("skills %q and %q both declare MCP server %q, with a different %s: make the declarations identical or disable one of the skills",
		e.First, e.Second, e.Server, e.Differs)
}

// Dependencies is the union of the skills' MCP servers, in the order the
// skills and their entries come. Two skills may name the same server only
// if connection, description and tool filters are identical (the order of
// a filter list does not matter); the server then counts once and lists
// both skills. Otherwise it is a [*ConflictError] naming both skills.
func Dependencies(skills []Skill) ([]MCPDependency, error) {
	var out []MCPDependency
	for _, s := range skills {
	next:
		for _, d := range s.Dependencies {
			for i := range out {
				if out[i].Name != d.Name {
					continue
				}
				if diff := differs(out[i], d); diff != "" {
					return nil, &ConflictError{Server: d.Name, First: out[i].Skills[0], Second: s.Name, Differs: diff}
				}
				if !slices.Contains(out[i].Skills, s.Name) {
					out[i].Skills = append(out[i].Skills, s.Name)
				}
				continue next
			}
			d.Args = slices.Clone(d.Args)
			d.EnabledTools = slices.Clone(d.EnabledTools)
			d.DisabledTools = slices.Clone(d.DisabledTools)
			d.Skills = []string{s.Name}
			out = append(out, d)
		}
	}
	return out, nil
}

// differs names what differs between two declarations of a server ("" when
// they are the same).
func differs(a, b MCPDependency) string {
	switch {
	case a.Transport != b.Transport:
		return "transport"
	case a.Command != b.Command || !slices.Equal(a.Args, b.Args):
		return "command"
	case a.URL != b.URL:
		return "url"
	case a.ProtocolVersion != b.ProtocolVersion:
		return "protocol_version"
	case a.BearerTokenEnvVar != b.BearerTokenEnvVar:
		return "bearer_token_env_var"
	case a.Description != b.Description:
		return "description"
	case !sameSet(a.EnabledTools, b.EnabledTools):
		return "enabled_tools"
	case !sameSet(a.DisabledTools, b.DisabledTools):
		return "disabled_tools"
	}
	return ""
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// ServerConfig is the server as a `[mcp_servers.<name>]` table of
// config.toml would hold it (Codex's keys: command, args, url,
// bearer_token_env_var, enabled_tools, disabled_tools; plus
// protocol_version when set), so skill servers and configured servers can
// go through the same code.
func (d MCPDependency) ServerConfig() map[string]any {
	m := map[string]any{}
	switch d.Transport {
	case TransportStdio:
		m["command"] = d.Command
		if len(d.Args) > 0 {
			m["args"] = slices.Clone(d.Args)
		}
	case TransportHTTP:
		m["url"] = d.URL
		if d.BearerTokenEnvVar != "" {
			m["bearer_token_env_var"] = d.BearerTokenEnvVar
		}
		if d.ProtocolVersion != "" {
			m["protocol_version"] = d.ProtocolVersion
		}
	}
	if len(d.EnabledTools) > 0 {
		m["enabled_tools"] = slices.Clone(d.EnabledTools)
	}
	if len(d.DisabledTools) > 0 {
		m["disabled_tools"] = slices.Clone(d.DisabledTools)
	}
	return m
}
