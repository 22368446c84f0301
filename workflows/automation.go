package workflows

// Automations: a Temporal Schedule (one per automation) starts
// [AutomationWorkflow] at every firing. A run does one thing: a prompt
// run sends one turn to a thread, through the same update front ends use
// (from an activity holding a Temporal client, see [AutomationActivities]);
// a command job runs one command on the workspace host, at most once.
// The run's result is the workflow's result, which `automation show`
// reads back through the schedule's recent actions.

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// AutomationSpec is an automation as its schedule holds it: the one
// argument of every run.
type AutomationSpec struct {
	Name string `json:"name"`
	// Prompt is the turn a prompt run sends; Command the shell command
	// line a command job runs instead (one of the two is set).
	Prompt  string `json:"prompt,omitempty"`
	Command string `json:"command,omitempty"`
	// NewThread starts a fresh thread per run; otherwise every run is a
	// turn of the automation's own thread ([AutomationThreadID]).
	NewThread bool `json:"new_thread,omitempty"`
	// TaskQueue is the queue threads run on (the shared one).
	TaskQueue string `json:"task_queue"`
	// Config is the thread's config (model, cwd, sandbox, approvals, host
	// queue), fixed when the automation was added.
	Config ThreadConfig `json:"config"`
	// CommandTimeout bounds a command job (0: [DefaultCommandJobTimeout]).
	CommandTimeout time.Duration `json:"command_timeout,omitempty"`
}

// DefaultCommandJobTimeout bounds a command job without --timeout.
const DefaultCommandJobTimeout = 10 * time.Minute

// Automation run statuses, besides the turn statuses (completed,
// failed, interrupted).
const (
	// AutomationBusy: the automation's thread was running another turn
	// (a person's), so this run sent none.
	AutomationBusy = "busy"
)

// AutomationRun is one run's result.
type AutomationRun struct {
	// Status is the turn's (completed, failed, interrupted), a command
	// job's (completed: exit code 0; failed; interrupted: cut off by a
	// kill or a stop, never run again), or [AutomationBusy].
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// ThreadID and TurnID name the turn of a prompt run.
	ThreadID     string `json:"thread_id,omitempty"`
	TurnID       string `json:"turn_id,omitempty"`
	FinalMessage string `json:"final_message,omitempty"`
	// ExitCode, Output (head and tail, bounded), TimedOut: a command
	// job's outcome.
	ExitCode   *int   `json:"exit_code,omitempty"`
	Output     string `json:"output,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
}

// AutomationTurnInput asks [AutomationActivities.RunAutomationTurn] for
// one turn.
type AutomationTurnInput struct {
	// ThreadID is the thread the turn goes to; it is created with the
	// turn when it does not exist.
	ThreadID string         `json:"thread_id"`
	Spec     AutomationSpec `json:"spec"`
	// RequestID makes a retried activity send the same turn again
	// (Temporal deduplicates the update by it), never a second one.
	RequestID string `json:"request_id"`
}

var automationName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// CheckAutomationName refuses a name that cannot name a schedule and a
// thread: lower-case letters, digits, '-' and '_', at most 63, starting
// with a letter or digit.
func CheckAutomationName(name string) error {
	if !automationName.MatchString(name) {
		return fmt.Errorf("bad automation name %q: use lower-case letters, digits, '-' and '_' (at most 63, starting with a letter or digit)", name)
	}
	return nil
}

// AutomationScheduleID is the id of the automation's Temporal Schedule.
func AutomationScheduleID(name string) string { return "automation-" + name }

// AutomationNameOf is the automation a schedule id names ("" for
// another schedule).
func AutomationNameOf(scheduleID string) string {
	name, ok := strings.CutPrefix(scheduleID, "automation-")
	if !ok || CheckAutomationName(name) != nil {
		return ""
	}
	return name
}

// AutomationRunPrefix begins the workflow id of every run of the
// automation (the schedule appends the firing's time).
func AutomationRunPrefix(name string) string { return "automation-" + name + "-run" }

// AutomationThreadID is the automation's own thread: every run's turn
// goes there unless it starts a fresh thread per run.
func AutomationThreadID(name string) string { return "automation-" + name + "-thread" }

// AutomationRunThread is the thread a run's turn goes to: the
// automation's own, or one named after the run (its workflow's run id:
// two firings in one second share a workflow id).
func AutomationRunThread(spec AutomationSpec, runID string) string {
	if spec.NewThread {
		return "automation-" + spec.Name + "-" + runID
	}
	return AutomationThreadID(spec.Name)
}

// AutomationWorkflow is one firing of an automation's schedule.
func AutomationWorkflow(ctx workflow.Context, spec AutomationSpec) (AutomationRun, error) {
	if spec.Command != "" {
		return commandJob(ctx, spec), nil
	}
	if strings.TrimSpace(spec.Prompt) == "" {
		return AutomationRun{Status: StatusFailed, Error: "the automation has neither a prompt nor a command"}, nil
	}
	ex := workflow.GetInfo(ctx).WorkflowExecution
	// The run id, not the workflow id, tells runs apart: the schedule
	// names a firing by its second, and a run fired by hand may share it.
	in := AutomationTurnInput{ThreadID: AutomationRunThread(spec, ex.RunID), Spec: spec, RequestID: ex.ID + "/" + ex.RunID}
	// The activity waits for the turn's end; it heartbeats meanwhile, and
	// a retry (a lost worker) sends the same turn, deduplicated.
	ao := workflow.ActivityOptions{
		StartToCloseTimeout: turnBound(spec.Config),
		HeartbeatTimeout:    30 * time.Second,
		Summary:             "turn on " + in.ThreadID,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 10 * time.Second},
	}
	var run AutomationRun
	var a *AutomationActivities
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), a.RunAutomationTurn, in).Get(ctx, &run)
	if err != nil {
		// Refused for good (bad config, an archived thread): the run's
		// result says why; the schedule goes on.
		return AutomationRun{Status: StatusFailed, ThreadID: in.ThreadID, Error: rootMessage(err)}, nil
	}
	return run, nil
}

// turnBound is how long a prompt run may wait for its turn: the turn's
// own timeout and a margin, or a day.
func turnBound(cfg ThreadConfig) time.Duration {
	if cfg.TurnTimeout > 0 {
		return cfg.TurnTimeout + 10*time.Minute
	}
	return 24 * time.Hour
}

// commandJob runs the command on the workspace host once. A worker that
// dies under it leaves it interrupted: its processes die with the
// worker, and it is not run again.
const jobHeartbeat = 20 * time.Second

func commandJob(ctx workflow.Context, spec AutomationSpec) AutomationRun {
	timeout := spec.CommandTimeout
	if timeout <= 0 {
		timeout = DefaultCommandJobTimeout
	}
	// A job's command is not reclaimed by a restarted worker the way a
	// turn's is: its heartbeat is what finds it cut off, so it stays short.
	hb := jobHeartbeat
	if spec.Config.ExecHeartbeat > 0 {
		hb = spec.Config.ExecHeartbeat
	}
	ao := workflow.ActivityOptions{
		TaskQueue:           spec.Config.HostQueue,
		StartToCloseTimeout: timeout + time.Minute,
		HeartbeatTimeout:    hb,
		Summary:             "command: " + oneLine(spec.Command, 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	in := automationCommand(spec, workflow.GetInfo(ctx).WorkflowExecution.RunID, timeout)
	var out activities.CommandJobOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), acts.RunCommandJob, in).Get(ctx, &out)
	if err != nil {
		run := AutomationRun{Status: StatusFailed, Error: rootMessage(err)}
		if isTimeout(err) {
			run.Status, run.Error = StatusInterrupted, "the worker running the command stopped before it finished; its outcome is unknown and it was NOT run again"
			run.DurationMs, run.Output = interruptedReport(err, "")
		}
		return run
	}
	return commandRun(out)
}

// automationCommand is the command job as the workspace host runs it,
// in the automation's sandbox.
func automationCommand(spec AutomationSpec, runID string, timeout time.Duration) activities.CommandJobInput {
	cfg := spec.Config
	ex := activities.ExecInput{ThreadID: runID, CallID: "command", Command: []string{"bash", "-lc", spec.Command},
		Cwd: cfg.Cwd, TimeoutMs: timeout.Milliseconds(), MaxOutput: cfg.MaxToolOutput,
		SandboxMode: cfg.SandboxMode, EnvPolicy: cfg.EnvPolicy}
	if cfg.SandboxMode != "danger-full-access" {
		ex.WorkspaceRoot, ex.WritableRoots, ex.NetworkAccess = cfg.Cwd, cfg.WritableRoots, cfg.NetworkAccess
	}
	return activities.CommandJobInput{RunID: runID, Exec: ex}
}

func commandRun(out activities.CommandJobOutput) AutomationRun {
	e := out.Exec
	exit := e.ExitCode
	run := AutomationRun{Status: StatusCompleted, ExitCode: &exit, Output: e.Output, TimedOut: e.TimedOut, DurationMs: e.DurationMs}
	switch {
	case e.SandboxError != "":
		run.Status, run.Error = StatusFailed, "the command was NOT run: the sandbox could not be applied: "+e.SandboxError
	case e.StartError != "":
		run.Status, run.Error = StatusFailed, "the command could not start: "+e.StartError
	case out.Error != "":
		run.Status, run.Error = StatusFailed, out.Error
	case exit != 0:
		run.Status = StatusFailed
	}
	if out.Warning != "" {
		run.Error = strings.TrimSpace(run.Error + "\n" + out.Warning)
	}
	return run
}
