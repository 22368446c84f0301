package workflows

import "github.com/interpreter-dev/interpreter/activities/skills"

// Run kinds (Ankole's three kinds of execution) decide which skills a
// turn lists and whose MCP servers it gets (see skills.go): a person's
// turns are main, a run nobody watches (exec --background, a goal's
// continuation turns) is a background job, and a scheduled run is an
// automation.
const (
	// RunKindMain is a person's turn; "" means the same.
	RunKindMain = skills.KindMain
	// RunKindBackgroundJob is an agent run with nobody attached.
	RunKindBackgroundJob = skills.KindBackgroundJob
	// RunKindAutomation is a run an automation's schedule started.
	RunKindAutomation = skills.KindAutomation
)

// NormalRunKind is the kind a run is of: "" is main; it returns "" for
// a kind it does not know.
func NormalRunKind(kind string) string {
	switch kind {
	case "", RunKindMain:
		return RunKindMain
	case RunKindBackgroundJob, RunKindAutomation:
		return kind
	}
	return ""
}

// runKind is the kind of a queued turn: a goal's continuation turn is a
// background job (nobody is attached), other turns are what their
// request says.
func (q QueuedTurn) runKind() string {
	if q.Goal {
		return RunKindBackgroundJob
	}
	return q.Request.RunKind
}
