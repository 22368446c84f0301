package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// How a turn runs its shell commands ([ThreadConfig.Commands]).
const (
	// CommandsActivity ("", what a config without the field means) runs
	// every command as a regular activity on the host's queue. The
	// `interpreter` binary sets CommandsLocal unless
	// temporal.local_commands is false.
	CommandsActivity = ""
	// CommandsLocal runs a command first as a local activity, inside the
	// turn's workflow task, when that task's worker serves the thread's
	// workspace host: a quick command then costs no activity dispatch
	// and no second workflow task. One still running after
	// [commandBudget] is handed off to a regular activity on a queue only
	// that worker process polls, which waits for it with what only a
	// regular activity gives (heartbeated output, a dead worker noticed,
	// the turn's messages taken while it runs). A worker of another host
	// leaves the command to a regular activity on the host's queue.
	CommandsLocal = "local"
)

// commandBudget is how long a command runs inside the workflow task
// before it is handed off: a local activity shows nothing to followers,
// so a longer command's first output reaches them that much later (plus
// the hand-off, whose activity heartbeats what was printed at once). The
// same as [modelCallBudget]. Turns before [localCommandsTimed] waited
// [commandBudgetV2].
const (
	commandBudget   = 250 * time.Millisecond
	commandBudgetV2 = time.Second
)

// localCommandsChange marks turns that run commands locally first;
// from version [localCommandsBounded] on, within [localTaskBudget]; from
// [localCommandsTimed] on, also within [maxLocalTimePerTask] and with
// the shorter [commandBudget]; from [localCommandsShown] on, the task's
// local model calls count in its time, and the turn's first events are
// not held past [firstEventsBudget].
const localCommandsChange = "local-commands"

const (
	localCommandsBounded = 2
	localCommandsTimed   = 3
	localCommandsShown   = 4
)

// firstEventsBudget bounds how long the turn's first answer may keep its
// events (the first command's item among them) inside a workflow task:
// a command of the first step, once the task spent this long on local
// work (the first model call), runs as a regular activity, so the task
// completes and followers see the turn's first item at once. A fast
// model's first step stays local.
const firstEventsBudget = 100 * time.Millisecond

// Bounds of one workflow task's local commands. A command past them
// runs as a regular activity, which ends the task: a task's local
// activities reach history together when it completes, so this keeps
// that completion small (each marker carries the command's output) and
// lets the turn's continue-as-new check, which reads the history length
// at the start of a task, see the turn grow. Without them a turn of
// quick steps could run hundreds of steps in one task.
const (
	maxLocalCommandsPerTask = 8
	maxLocalOutputPerTask   = 256 << 10
	// maxLocalTimePerTask bounds the summed run time of a task's local
	// commands, as their local activities reported it (so a replay
	// decides the same; workflow.Now does not move inside a task). The
	// turn's events reach followers only when the task completes: with
	// quick model calls, eight commands of a quarter second each would
	// keep them waiting two seconds. A task runs commands locally while
	// it has spent less, so at most this plus one [commandBudget]. From
	// [localCommandsShown] on, the task's local model calls count too:
	// a fast model's many quick steps in one task hold their events as
	// long.
	maxLocalTimePerTask = 500 * time.Millisecond
	// eventsPerLocalStep is what a step of local work adds to history:
	// its model call's marker and its command's.
	eventsPerLocalStep = 2
)

// localTaskBudget is what the current workflow task spent on local
// commands.
type localTaskBudget struct {
	// task is the history length at the task's start.
	task     int
	commands int
	bytes    int
	// ms is the commands' summed run time (from [localCommandsTimed]).
	ms int64
	// modelMs is the task's local model calls' time (counted from
	// [localCommandsShown]).
	modelMs int64
}

// StartedCommand is the host-local record of a command a local activity
// started: Key names it, Task is the history length at the start of the
// workflow task that ran it (its outcome is in history once a later task
// runs).
type StartedCommand struct {
	Key  string `json:"key"`
	Task int    `json:"task"`
}

func (t *turn) localCommands(ctx workflow.Context) bool {
	cfg := t.in.Config
	if cfg.HostQueue == "" || cfg.Commands != CommandsLocal {
		return false
	}
	t.localVersion = workflow.GetVersion(ctx, localCommandsChange, workflow.DefaultVersion, localCommandsShown)
	v := t.localVersion
	return v == 1 || v >= localCommandsBounded && t.localRoom(ctx)
}

// localRoom tells whether the current workflow task may run one more
// command locally (see [maxLocalCommandsPerTask]).
func (t *turn) localRoom(ctx workflow.Context) bool {
	now := workflow.GetInfo(ctx).GetCurrentHistoryLength()
	b := t.taskBudget(now)
	spent := b.ms
	if t.localVersion >= localCommandsShown {
		spent += b.modelMs
		if t.st.Step == 1 && spent >= firstEventsBudget.Milliseconds() {
			return false
		}
	}
	if t.localVersion >= localCommandsTimed && spent >= maxLocalTimePerTask.Milliseconds() {
		return false
	}
	return b.commands < maxLocalCommandsPerTask && b.bytes < maxLocalOutputPerTask &&
		now+eventsPerLocalStep*(b.commands+1) <= historyEventsLimit(t.in.Config)
}

// taskBudget is what the workflow task that began at history length now
// spent so far.
func (t *turn) taskBudget(now int) *localTaskBudget {
	b := &t.localBudget
	if b.task != now {
		*b = localTaskBudget{task: now}
	}
	return b
}

// spendLocal counts a command the current task ran locally.
func (t *turn) spendLocal(ctx workflow.Context, res *activities.LocalExecOutput) {
	b := t.taskBudget(workflow.GetInfo(ctx).GetCurrentHistoryLength())
	b.commands++
	ms := res.ElapsedMs
	if out := res.Output; out != nil {
		b.bytes += len(out.Output) + len(out.StartError)
		ms = max(ms, out.DurationMs)
	}
	b.ms += ms
}

// commandWindow is how long this turn's commands run locally before
// they are handed off.
func (t *turn) commandWindow() time.Duration {
	if t.localVersion >= localCommandsTimed {
		return commandBudget
	}
	return commandBudgetV2
}

// errStartedBefore tells that a command's record showed an earlier
// attempt started it: it counts as interrupted, never run again.
var errStartedBefore = temporal.NewNonRetryableApplicationError("the command was started before", activities.ErrTypeCommandStartedBefore, nil)

// execHere runs in's command as a local activity (see [CommandsLocal]).
// handled is false when the task's worker does not serve the host: the
// caller runs it as a regular activity, with in.Record set so that it is
// not run where an earlier attempt of this one started it.
func (t *turn) execHere(ctx workflow.Context, opts workflow.ActivityOptions, in *activities.ExecInput, key string, out *activities.ExecOutput) (handled bool, err error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		// Starting it may read the login profile for a snapshot first.
		StartToCloseTimeout: 2 * time.Minute,
		Summary:             opts.Summary,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	now := workflow.GetInfo(ctx).GetCurrentHistoryLength()
	lin := activities.LocalExecInput{Exec: *in, HostQueue: t.in.Config.HostQueue, Key: key,
		Budget: t.commandWindow(), Forget: t.forgettable(now)}
	var res activities.LocalExecOutput
	err = workflow.ExecuteLocalActivity(lctx, acts.ExecHere, lin).Get(ctx, &res)
	t.noteLocalCall(ctx)
	switch {
	case err != nil:
		return true, err
	case res.Elsewhere:
		in.Record = key
		return false, nil
	}
	t.st.Started = append(t.st.Started, StartedCommand{Key: key, Task: now})
	t.spendLocal(ctx, &res)
	switch {
	case res.StartedBefore:
		return true, errStartedBefore
	case res.Handoff != "":
		o := opts
		o.TaskQueue = res.HandoffQueue
		o.ScheduleToStartTimeout = handoffPickup
		resume := *in
		resume.Resume = res.Handoff
		f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), acts.Exec, resume)
		return true, t.awaitCommandOn(ctx, f, in.CallID, res.HandoffQueue, out)
	case res.Output == nil:
		return true, errors.New("the local command returned no outcome")
	}
	*out = *res.Output
	if res.Canceled {
		return true, temporal.NewCanceledError(*res.Output)
	}
	return true, nil
}

// forgettable takes from the turn's records those whose outcome is in
// history (run in an earlier workflow task than the one at now).
func (t *turn) forgettable(now int) []string {
	var keys []string
	kept := t.st.Started[:0:0]
	for _, s := range t.st.Started {
		if s.Task < now {
			keys = append(keys, s.Key)
		} else {
			kept = append(kept, s)
		}
	}
	t.st.Started = kept
	return keys
}

// forgetCommands removes the records the turn left, as it closes (after
// [turn.closeApart], so every local command's outcome is in history).
// Removing is idempotent, so this task may fail and run it again.
func (t *turn) forgetCommands(ctx workflow.Context) {
	if len(t.st.Started) == 0 {
		return
	}
	keys := make([]string, 0, len(t.st.Started))
	for _, s := range t.st.Started {
		keys = append(keys, s.Key)
	}
	t.st.Started = nil
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	lctx := workflow.WithLocalActivityOptions(dctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		Summary:             "forget started commands",
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	_ = workflow.ExecuteLocalActivity(lctx, acts.ForgetCommands,
		activities.ForgetCommandsInput{HostQueue: t.in.Config.HostQueue, Keys: keys}).Get(dctx, nil)
}

// isCommandLost tells that a command's outcome is unknown because the
// worker that ran it stopped (its record or its handoff says so).
func isCommandLost(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && (app.Type() == activities.ErrTypeCommandLost || app.Type() == activities.ErrTypeCommandStartedBefore)
}
