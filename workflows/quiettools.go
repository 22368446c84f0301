package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// Quiet tool calls: an MCP call, a unified-exec call (exec_command,
// write_stdin) and a background terminal's watch may each wait minutes
// with nothing to say. They get a shell command's long heartbeat timeout
// ([commandHeartbeat], or [temporal] command_heartbeat), so a quiet one
// costs the server a call every few minutes instead of every second; what
// the short timeout bought comes another way, as for commands: a worker
// lost on its machine is found at once by its peers (lock files) or by
// its own restart (worker.Reclaim, which reclaims threads' watches too),
// new output is heartbeated at once and wakes the turn's followers after
// a silence, and a stop reaches the call's worker directly
// ([activities.Activities.StopCommand]) rather than with its next beat.

// quietToolsChange marks turns whose MCP and unified-exec calls have the
// long heartbeat timeout and are stopped directly when the turn is.
const quietToolsChange = "quiet-tools"

// quietTools records the marker (once per run) and tells whether this
// turn's tool calls are quiet.
func (t *turn) quietTools(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, quietToolsChange, workflow.DefaultVersion, 1) >= 1
}

// toolHeartbeat is the heartbeat timeout of an MCP or unified-exec call:
// a command's when quiet, else as before (ExecHeartbeat or 5 s).
func (t *turn) toolHeartbeat(quiet bool) time.Duration {
	if quiet {
		return t.commandHeartbeat()
	}
	if hb := t.in.Config.ExecHeartbeat; hb > 0 {
		return hb
	}
	return 5 * time.Second
}

// awaitTool waits for a tool call's activity; when quiet, an interrupted
// turn also stops it through its worker ([turn.awaitCommandOn], the call
// id being key).
func (t *turn) awaitTool(ctx workflow.Context, quiet bool, f workflow.Future, key, stopQueue string, out any) error {
	if !quiet {
		return f.Get(ctx, out)
	}
	return t.awaitCommandOn(ctx, f, key, stopQueue, out)
}

// quietWatchesChange marks threads whose background-terminal watches have
// the long heartbeat timeout and are stopped directly.
const quietWatchesChange = "quiet-watches"

// bgQuiet records the marker (once per run) and tells whether this
// thread's watches are quiet.
func (t *thread) bgQuiet(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, quietWatchesChange, workflow.DefaultVersion, 1) >= 1
}

// bgHeartbeat is a watch's heartbeat timeout (see [turn.commandHeartbeat]).
func (t *thread) bgHeartbeat(quiet bool) time.Duration {
	cfg := t.st.Config
	switch {
	case cfg.ExecHeartbeat > 0:
		return cfg.ExecHeartbeat
	case !quiet:
		return 5 * time.Second
	case cfg.CommandHeartbeat > 0:
		return cfg.CommandHeartbeat
	}
	return commandHeartbeat
}

// bgStopWatch tells the worker holding session id to end its watch, which
// the thread cancelled: a quiet watch would hear of that only with its
// next heartbeat, minutes away.
func (t *thread) bgStopWatch(ctx workflow.Context, id int) workflow.Future {
	queue := t.st.Config.HostQueue
	if s, ok := t.bgSession(id); ok && s.Queue != "" {
		queue = s.Queue
	}
	sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: t.bgPickup(),
		StartToCloseTimeout:    5 * time.Second,
		Summary:                "stop watching background terminal " + itoa(id),
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	return workflow.ExecuteActivity(sctx, acts.StopCommand, activities.StopCommandInput{
		TurnID: workflow.GetInfo(ctx).WorkflowExecution.ID, CallID: activities.WatchStopKey(id)})
}
