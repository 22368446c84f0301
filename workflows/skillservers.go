package workflows

import (
	"fmt"
	"slices"
	"strings"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/activities/skills"
)

// extraServers are the MCP servers joined to the thread's for this turn
// only: those the turn's enabled skills declare ([TurnState.SkillServers],
// already merged and checked for conflicts between skills). A server the
// thread's config defines under the same name keeps the config's
// definition; when the skill's differs, clashes says so, naming the skills.
func (t *turn) extraServers() (extra []mcpclient.Server, clashes []string) {
	for _, d := range t.st.SkillServers {
		s := skillServer(d)
		i := slices.IndexFunc(t.in.Config.MCPServers, func(c mcpclient.Server) bool { return c.Name == s.Name })
		if i < 0 {
			extra = append(extra, s)
			continue
		}
		if !sameConnection(t.in.Config.MCPServers[i], s) {
			clashes = append(clashes, fmt.Sprintf("mcp server %q of skill %s differs from mcp_servers.%s in config.toml; the config's definition is used",
				s.Name, strings.Join(d.Skills, ", "), s.Name))
		}
	}
	return extra, clashes
}

// skillServer is a skill's declared server as the MCP client takes it.
// Only variable names travel (the bearer token's value is read on the
// workspace host); skills cannot mark a server required.
func skillServer(d skills.MCPDependency) mcpclient.Server {
	s := mcpclient.Server{Name: d.Name, BearerTokenEnvVar: d.BearerTokenEnvVar, ProtocolVersion: d.ProtocolVersion,
		DisabledTools: slices.Clone(d.DisabledTools)}
	switch d.Transport {
	case skills.TransportStdio:
		s.Command, s.Args = d.Command, slices.Clone(d.Args)
	case skills.TransportHTTP:
		s.URL = d.URL
	}
	if len(d.EnabledTools) > 0 {
		s.EnabledTools = slices.Clone(d.EnabledTools)
	}
	return s
}

// sameConnection reports whether two definitions reach the same server
// with the same tools.
func sameConnection(a, b mcpclient.Server) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL &&
		a.BearerTokenEnvVar == b.BearerTokenEnvVar && a.ProtocolVersion == b.ProtocolVersion &&
		slices.Equal(a.EnabledTools, b.EnabledTools) && slices.Equal(a.DisabledTools, b.DisabledTools)
}
