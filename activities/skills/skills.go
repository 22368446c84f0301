// Package skills finds the skills a turn offers and the MCP servers they
// need.
//
// A skill is a folder holding a SKILL.md: YAML frontmatter (name,
// description) and a body of instructions the model reads when a task
// matches. Skills are looked up in `.agents/skills/` of the working
// directory and of each parent up to the repository root, then in
// `~/.agents/skills/`, then among the skills bundled with the binary; the
// first skill of a name wins. Only the frontmatter is read here: the model
// opens the body itself.
//
// A skill may declare the MCP servers it needs in `agents/openai.yaml`
// (see [ParseOpenAIYAML]); its frontmatter's `ankole-runtime` says which
// kinds of run see it ([Visible]); [Dependencies] merges the declarations of the
// enabled skills into one server list per turn. Nothing here connects to a
// server.
//
// Parsing is pure ([ParseFrontmatter], [ParseOpenAIYAML], [Dependencies],
// [Settings.Enabled]); [Discover] reads the folders.
package skills

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Scopes: where a skill was found, in precedence order.
const (
	ScopeRepo    = "repo"
	ScopeUser    = "user"
	ScopeBundled = "bundled"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// DependenciesFile is where a skill declares its MCP servers, relative to
// the skill's folder.
const DependenciesFile = "agents/openai.yaml"

// Skill is one discovered skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the absolute path of the skill's SKILL.md on the workspace
	// host: the model reads it there.
	Path  string `json:"path"`
	Scope string `json:"scope"`
	// Dependencies are the MCP servers the skill declared.
	Dependencies []MCPDependency `json:"dependencies,omitempty"`
	// Runtime is the skill's ankole-runtime: which kinds of run see it
	// (runtime.go).
	Runtime string `json:"runtime,omitempty"`
}

// Dir is the skill's folder.
func (s Skill) Dir() string { return filepath.Dir(s.Path) }

// Transports of an MCP dependency.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "streamable_http"
)

// MCPDependency is an MCP server a skill needs, as its openai.yaml
// declares it. Only the name of the bearer token's variable is kept,
// never a token.
type MCPDependency struct {
	// Name is the server's name (the entry's `value`).
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Transport   string `json:"transport"`
	// Command and Args start a stdio server.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// URL, ProtocolVersion and BearerTokenEnvVar reach a streamable HTTP
	// server.
	URL               string `json:"url,omitempty"`
	ProtocolVersion   string `json:"protocol_version,omitempty"`
	BearerTokenEnvVar string `json:"bearer_token_env_var,omitempty"`
	// EnabledTools, when set, are the only tools offered; DisabledTools
	// are never offered.
	EnabledTools  []string `json:"enabled_tools,omitempty"`
	DisabledTools []string `json:"disabled_tools,omitempty"`
	// Skills are the enabled skills that declared the server (set by
	// [Dependencies]).
	Skills []string `json:"skills,omitempty"`
}

// Warning is a skill that was skipped, and why.
type Warning struct {
	// Skill is the skill's name when it is known.
	Skill string `json:"skill,omitempty"`
	// Path is the file at fault.
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	if w.Skill != "" {
		return fmt.Sprintf("skill %q skipped: %s", w.Skill, w.Message)
	}
	return fmt.Sprintf("skill skipped: %s: %s", w.Path, w.Message)
}

// Settings say which skills are enabled ([skills] in config.toml, with
// Codex's keys: `[[skills.config]]` entries with `path` or `name` and
// `enabled`, and `[skills.bundled] enabled`). Every skill is enabled
// unless a rule says otherwise.
type Settings struct {
	// Rules are applied in order; the last one that matches a skill
	// decides.
	Rules []Rule `json:"rules,omitempty"`
	// NoBundled turns the bundled skills off.
	NoBundled bool `json:"no_bundled,omitempty"`
}

// Rule enables or disables the skills it matches: by Path (the skill's
// SKILL.md or its folder) or by Name.
type Rule struct {
	Path    string `json:"path,omitempty"`
	Name    string `json:"name,omitempty"`
	Enabled bool   `json:"enabled"`
}

// Enabled applies the settings to a skill.
func (st Settings) Enabled(s Skill) bool {
	if st.NoBundled && s.Scope == ScopeBundled {
		return false
	}
	on := true
	for _, r := range st.Rules {
		if r.matches(s) {
			on = r.Enabled
		}
	}
	return on
}

func (r Rule) matches(s Skill) bool {
	if r.Name != "" && r.Name == s.Name {
		return true
	}
	if r.Path == "" {
		return false
	}
	p := filepath.Clean(r.Path)
	return p == filepath.Clean(s.Path) || p == filepath.Clean(s.Dir())
}

// oneLine folds a description onto one line for the prompt.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
