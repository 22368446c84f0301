package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// An exec_command runs as a shell command does with [CommandsLocal]:
// first as a local activity in the turn's workflow task, when that task's
// worker serves the workspace host. A command that ends within
// [commandBudget] (most do) costs no activity dispatch and no second
// task. A session still running then, whose yield is longer, stays in
// that worker process and is handed off to a regular activity on the
// process's own queue, which waits out the rest of the yield with
// heartbeats as ExecCommand does; a session whose yield ended first is
// answered as running, held by that same process, for write_stdin.

// localExecCommandChange marks turns whose exec_command calls run
// locally first.
const localExecCommandChange = "local-exec-command"

// execCommandLocally tells whether this call may run as a local
// activity.
func (t *turn) execCommandLocally(ctx workflow.Context) bool {
	return t.localCommands(ctx) && workflow.GetVersion(ctx, localExecCommandChange, workflow.DefaultVersion, 1) == 1
}

// execCommandHere runs in as a local activity; handled is false when the
// task's worker does not serve the host: the caller runs the regular
// activity, with in.Exec.Record set so that it does not start the
// command where an earlier attempt of this one started it.
func (t *turn) execCommandHere(ctx workflow.Context, opts workflow.ActivityOptions, in *activities.ExecCommandInput, key string, quiet bool, out *activities.SessionOutput) (handled bool, err error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		// Starting it may read the login profile for a snapshot first.
		StartToCloseTimeout: 2 * time.Minute,
		Summary:             opts.Summary,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	now := workflow.GetInfo(ctx).GetCurrentHistoryLength()
	lin := activities.LocalExecCommandInput{Session: *in, HostQueue: t.in.Config.HostQueue, Key: key,
		Budget: t.commandWindow(), Forget: t.forgettable(now)}
	var res activities.LocalExecCommandOutput
	err = workflow.ExecuteLocalActivity(lctx, acts.ExecCommandHere, lin).Get(ctx, &res)
	t.noteLocalCall(ctx)
	switch {
	case err != nil:
		return true, err
	case res.Elsewhere:
		in.Exec.Record = key
		return false, nil
	}
	t.st.Started = append(t.st.Started, StartedCommand{Key: key, Task: now})
	t.spendSession(ctx, &res)
	switch {
	case res.StartedBefore:
		return true, errStartedBefore
	case res.HandoffQueue != "":
		o := opts
		o.TaskQueue = res.HandoffQueue
		o.ScheduleToStartTimeout = handoffPickup
		o.Summary = opts.Summary + " (continued)"
		rin := activities.ResumeExecCommandInput{ThreadID: in.Exec.ThreadID, CallID: in.Exec.CallID, SessionID: in.SessionID,
			YieldMs: max(in.YieldMs-res.ElapsedMs, 0), ElapsedMs: res.ElapsedMs, MaxTokens: in.MaxTokens}
		f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), acts.ResumeExecCommand, rin)
		return true, t.awaitTool(ctx, quiet, f, in.Exec.CallID, res.HandoffQueue, out)
	case res.Output == nil:
		return true, errors.New("the local exec_command returned no outcome")
	}
	*out = *res.Output
	if res.Canceled {
		return true, temporal.NewCanceledError(*res.Output)
	}
	return true, nil
}

// spendSession counts an exec_command the current task ran locally.
func (t *turn) spendSession(ctx workflow.Context, res *activities.LocalExecCommandOutput) {
	b := t.taskBudget(workflow.GetInfo(ctx).GetCurrentHistoryLength())
	b.commands++
	if out := res.Output; out != nil {
		b.bytes += len(out.Output) + len(out.StartError)
	}
	b.ms += res.ElapsedMs
}
