package workflows

import (
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/activities/skills"
)

func TestSkillServersJoinTheThreads(t *testing.T) {
	docs := skills.MCPDependency{Name: "docs", Transport: skills.TransportHTTP, URL: "https://docs.example/mcp",
		BearerTokenEnvVar: "DOCS_TOKEN", EnabledTools: []string{"search"}, Skills: []string{"research"}}
	lint := skills.MCPDependency{Name: "lint", Transport: skills.TransportStdio, Command: "lint-mcp", Args: []string{"--stdio"},
		Skills: []string{"review", "ship"}}
	for _, tc := range []struct {
		name    string
		config  []mcpclient.Server
		deps    []skills.MCPDependency
		want    []string // names of the extra servers
		clashes []string // substrings of the clash warnings
	}{
		{name: "no skills"},
		{name: "skills only", deps: []skills.MCPDependency{docs, lint}, want: []string{"docs", "lint"}},
		{name: "same definition in config", deps: []skills.MCPDependency{lint},
			config: []mcpclient.Server{{Name: "lint", Command: "lint-mcp", Args: []string{"--stdio"}}}},
		{name: "different definition in config", deps: []skills.MCPDependency{lint, docs},
			config: []mcpclient.Server{{Name: "lint", Command: "other-lint"}}, want: []string{"docs"},
			clashes: []string{`"lint"`, "review, ship", "mcp_servers.lint"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &turn{in: TurnInput{Config: ThreadConfig{MCPServers: tc.config}}, st: TurnState{SkillServers: tc.deps}}
			extra, clashes := tr.extraServers()
			var names []string
			for _, s := range extra {
				names = append(names, s.Name)
				if err := s.Validate(); err != nil {
					t.Errorf("server %s from a skill does not validate: %v", s.Name, err)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Errorf("extra servers %v, want %v", names, tc.want)
			}
			if len(clashes) != min(len(tc.clashes), 1) {
				t.Fatalf("clashes %q", clashes)
			}
			for _, want := range tc.clashes {
				if !strings.Contains(clashes[0], want) {
					t.Errorf("clash %q does not mention %s", clashes[0], want)
				}
			}
		})
	}
	s := skillServer(docs)
	if s.URL != docs.URL || s.BearerTokenEnvVar != "DOCS_TOKEN" || len(s.EnabledTools) != 1 || s.Command != "" {
		t.Errorf("http dependency became %+v", s)
	}
	if s := skillServer(lint); s.EnabledTools != nil {
		t.Errorf("no enabled_tools must allow every tool, got %v", s.EnabledTools)
	}
}
