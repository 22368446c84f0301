package workflows

import (
	"fmt"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

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

// checkRunKind refuses a turn of a kind there is no such thing as (the
// turn-start update's validator: nothing reaches history).
func checkRunKind(kind string) error {
	if NormalRunKind(kind) == "" {
		return fmt.Errorf("unknown run kind %q: it must be %s, %s or %s", kind, RunKindMain, RunKindBackgroundJob, RunKindAutomation)
	}
	return nil
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

// kindSummary heads a turn's page in the UI: a background job or an
// automation says so before its prompt (a goal's continuation says it is
// one already).
func kindSummary(q QueuedTurn) string {
	s := queuedSummary(q)
	if k := q.Request.RunKind; !q.Goal && k != "" && k != RunKindMain {
		return "[" + k + "] " + s
	}
	return s
}

// KindDetails is the run kind as the UI's details of a turn or thread
// show it: "" for a person's turn.
func KindDetails(kind string) string {
	if kind == "" || kind == RunKindMain {
		return ""
	}
	return " · run `" + kind + "`"
}
