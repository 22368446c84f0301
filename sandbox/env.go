package sandbox

import (
	"path"
	"strings"
)

// EnvPolicy says which of the worker's environment variables a command
// sees, after Codex's [shell_environment_policy] (same key names), plus
// Allow. Patterns are case-insensitive globs on the variable name.
type EnvPolicy struct {
	// IgnoreDefaultExcludes passes variables that look like secrets.
	IgnoreDefaultExcludes bool `json:"ignore_default_excludes,omitempty"`
	// Exclude drops more variables.
	Exclude []string `json:"exclude,omitempty"`
	// IncludeOnly, when set, keeps only matching variables.
	IncludeOnly []string `json:"include_only,omitempty"`
	// Allow passes variables even though they look like secrets (ours:
	// `allow = ["GITHUB_TOKEN"]`).
	Allow []string `json:"allow,omitempty"`
}

// SecretPatterns are the default excludes: names that look like they
// hold a secret.
var SecretPatterns = []string{"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*"}

// FilterEnv applies p to an environment in os.Environ form, keeping the
// order.
func FilterEnv(environ []string, p EnvPolicy) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if p.Keeps(name) {
			out = append(out, kv)
		}
	}
	return out
}

// Keeps reports whether a variable of this name is passed to commands.
func (p EnvPolicy) Keeps(name string) bool {
	allowed := matchAny(name, p.Allow)
	if !p.IgnoreDefaultExcludes && !allowed && matchAny(name, SecretPatterns) {
		return false
	}
	if matchAny(name, p.Exclude) && !allowed {
		return false
	}
	if len(p.IncludeOnly) > 0 && !matchAny(name, p.IncludeOnly) && !allowed {
		return false
	}
	return true
}

func matchAny(name string, patterns []string) bool {
	upper := strings.ToUpper(name)
	for _, pat := range patterns {
		if ok, err := path.Match(strings.ToUpper(pat), upper); err == nil && ok {
			return true
		}
	}
	return false
}
