package skills

import "fmt"

// Runtimes a skill may name in its frontmatter's `ankole-runtime`: the
// kinds of run that list it and get its MCP servers.
const (
	RuntimeAny           = "any"
	RuntimeMain          = "main"
	RuntimeBackgroundJob = "background_job"
)

// RuntimeKey is the frontmatter key.
const RuntimeKey = "ankole-runtime"

// Kinds of run (the workflows' run kinds): a person's turn, an agent run
// nobody watches, and an automation's command job, which runs no model.
const (
	KindMain          = "main"
	KindBackgroundJob = "background_job"
	KindAutomation    = "automation"
)

// Kinds are the kinds of run, in the order listings show them.
var Kinds = []string{KindMain, KindBackgroundJob, KindAutomation}

// parseRuntime checks an `ankole-runtime` value; "" (absent) is any.
func parseRuntime(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return RuntimeAny, nil
	case string:
		switch x {
		case RuntimeAny, RuntimeMain, RuntimeBackgroundJob:
			return x, nil
		}
		return "", fmt.Errorf("frontmatter field %q is %q: it must be %s, %s or %s", RuntimeKey, x, RuntimeAny, RuntimeMain, RuntimeBackgroundJob)
	default:
		return "", fmt.Errorf("frontmatter field %q must be a string (%s, %s or %s)", RuntimeKey, RuntimeAny, RuntimeMain, RuntimeBackgroundJob)
	}
}

// Visible reports whether a run of the kind lists a skill of the runtime
// and gets its MCP servers: a main run (or "") the any and main skills, a
// background job the any and background_job skills, an automation every
// skill (it has no model to list them to, only the servers for its
// command). An unknown kind sees only the any skills.
func Visible(runtime, kind string) bool {
	if runtime == "" || runtime == RuntimeAny || kind == KindAutomation {
		return true
	}
	switch kind {
	case "", KindMain:
		return runtime == RuntimeMain
	case KindBackgroundJob:
		return runtime == RuntimeBackgroundJob
	}
	return false
}

// ValidKind reports whether kind is a kind of run ("" is main).
func ValidKind(kind string) bool {
	switch kind {
	case "", KindMain, KindBackgroundJob, KindAutomation:
		return true
	}
	return false
}
