package workflows

import (
	"reflect"
	"runtime"
	"strings"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// What front ends read of a turn besides its messages: the names of the
// activities whose heartbeats carry live output, the heartbeat details
// themselves, and the memo keys of thread workflows. They live here so
// that front ends import workflows and frontend/threads only.

// Registered names of the activities whose heartbeat details carry a
// turn's live output. They are derived from the typed references the
// worker registers (by method value, so Temporal names each after its
// method): renaming a method renames its activity here too.
var (
	// ActivityExec runs a shell command ([ExecProgress] heartbeats).
	ActivityExec = activityName((*activities.Activities).Exec)
	// ActivityExecCommand starts a unified-exec session; it heartbeats as
	// Exec does.
	ActivityExecCommand = activityName((*activities.Activities).ExecCommand)
	// ActivityResumeExecCommand waits out an exec_command that a local
	// activity started and handed off; it heartbeats as Exec does.
	ActivityResumeExecCommand = activityName((*activities.Activities).ResumeExecCommand)
	// ActivityWriteStdin writes into a session; its output belongs to the
	// exec_command call that started the session.
	ActivityWriteStdin = activityName((*activities.Activities).WriteStdin)
	// ActivityCallModel is a model call made as a regular activity
	// ([ModelProgress] heartbeats).
	ActivityCallModel = activityName((*activities.Activities).CallModel)
)

// activityName is the name Temporal registers an activity function under:
// the function's name without its package and receiver (the SDK's rule for
// RegisterActivity without a name).
func activityName(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	name = strings.TrimSuffix(name, "-fm")
	return name[strings.LastIndexByte(name, '.')+1:]
}

// Heartbeat details front ends decode from a turn's pending activities.
type (
	// ExecProgress is a running command's heartbeat detail.
	ExecProgress = activities.ExecProgress
	// ModelProgress is a streaming model call's heartbeat detail.
	ModelProgress = activities.ModelProgress
)

// SignalLiveWake is the signal a running command's worker sends its turn
// when the command prints after a silence, so that the turn's history
// moves and its followers look at the live output again (see
// [ExecProgress].WakeAfterMs). The turn ignores it.
const SignalLiveWake = activities.LiveWakeSignal

// LiveTailBytes bounds the output one heartbeat carries: a reader that
// polls less often than that much output is written misses bytes.
const LiveTailBytes = activities.LiveTailBytes

// Memo keys of thread workflows that front ends list threads by (see also
// [MemoName], [MemoParentThread], [MemoAgentRole], [MemoAgentNickname] and
// [MemoAgentDepth]).
const (
	MemoTitle      = "title"
	MemoCwd        = "cwd"
	MemoModel      = "model"
	MemoProvider   = "provider"
	MemoCreatedAt  = "created_at"
	MemoForkedFrom = "forked_from"
)

// CheckReasoning refuses reasoning settings the harnesses do not know
// (model_reasoning_effort, model_reasoning_summary), as a turn's thread
// would.
func CheckReasoning(effort, summary string) error {
	return harness.Reasoning{Effort: effort, Summary: summary}.Validate()
}
