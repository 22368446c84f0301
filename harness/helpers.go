package harness

import "strings"

// PlanStatus maps the todo statuses harnesses use onto plan step statuses.
func PlanStatus(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pending", "todo", "not_started":
		return StepPending, true
	case "in_progress", "in-progress", "active":
		return StepInProgress, true
	case "completed", "done", "complete", "cancelled":
		return StepCompleted, true
	}
	return "", false
}

// typeGlobs are ripgrep's names for the most common file types.
var typeGlobs = map[string]string{
	"go": "*.go", "py": "*.{py,pyi}", "python": "*.{py,pyi}", "js": "*.{js,jsx,mjs,cjs}",
	"ts": "*.{ts,tsx,mts,cts}", "typescript": "*.{ts,tsx,mts,cts}", "rust": "*.rs", "rs": "*.rs",
	"java": "*.java", "c": "*.{c,h}", "cpp": "*.{cpp,cc,cxx,hpp,hh,hxx,h}", "cs": "*.cs",
	"rb": "*.rb", "ruby": "*.rb", "php": "*.php", "swift": "*.swift", "kotlin": "*.{kt,kts}",
	"scala": "*.scala", "sh": "*.{sh,bash,zsh}", "md": "*.{md,markdown}", "markdown": "*.{md,markdown}",
	"json": "*.json", "yaml": "*.{yaml,yml}", "toml": "*.toml", "html": "*.{html,htm}",
	"css": "*.{css,scss,sass,less}", "sql": "*.sql", "proto": "*.proto", "lua": "*.lua",
}

// TypeGlob is the file glob of a ripgrep file type name ("go", "py", ...);
// an unknown name is taken as an extension.
func TypeGlob(t string) string {
	t = strings.ToLower(strings.TrimPrefix(t, "."))
	if g, ok := typeGlobs[t]; ok {
		return g
	}
	return "*." + t
}

// ShellCommand is the argv that runs a command line with bash.
func ShellCommand(script string) []string { return []string{"bash", "-lc", script} }
