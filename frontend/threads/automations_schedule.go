package threads

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Automations are Temporal Schedules, one per automation (id
// [workflows.AutomationScheduleID]); every firing starts
// [workflows.AutomationWorkflow] with the automation's spec.

var (
	// ErrAutomationNotFound: no automation has the name.
	ErrAutomationNotFound = errors.New("no such automation")
	// ErrAutomationExists: an automation has the name already.
	ErrAutomationExists = errors.New("an automation with this name exists")
)

// AutomationCatchupWindow is how late a firing missed while the
// cluster was down may still run. Missed firings come together when it
// is back, and the overlap policy (skip) lets only the first run: at
// most one catch-up run, whatever the downtime.
const AutomationCatchupWindow = 7 * 24 * time.Hour

// When is an automation's timing: an interval or a cron spec.
type When struct {
	Every time.Duration `json:"every,omitempty"`
	Cron  string        `json:"cron,omitempty"`
}

func (w When) String() string {
	if w.Cron != "" {
		return "cron " + w.Cron
	}
	return "every " + w.Every.String()
}

func (w When) spec() (client.ScheduleSpec, error) {
	switch {
	case (w.Every > 0) == (w.Cron != ""):
		return client.ScheduleSpec{}, errors.New("give either an interval (--every) or a cron spec (--cron)")
	case w.Cron != "":
		return client.ScheduleSpec{CronExpressions: []string{w.Cron}}, nil
	case w.Every < time.Second:
		return client.ScheduleSpec{}, fmt.Errorf("--every %s is too short: at least 1s", w.Every)
	}
	return client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: w.Every}}}, nil
}

// Memo keys of an automation's schedule (the Temporal UI shows them).
const (
	memoAutomation = "automation"
	memoWhen       = "schedule"
	memoPrompt     = "prompt"
	memoCommand    = "command"
)

// AddAutomation creates the automation's schedule.
func AddAutomation(ctx context.Context, c client.Client, spec workflows.AutomationSpec, when When) error {
	if err := workflows.CheckAutomationName(spec.Name); err != nil {
		return err
	}
	if (spec.Prompt == "") == (spec.Command == "") {
		return errors.New("give either a PROMPT or --command")
	}
	if spec.Prompt != "" {
		if err := workflows.CheckThreadStart(spec.Config, spec.Prompt); err != nil {
			return err
		}
	}
	ss, err := when.spec()
	if err != nil {
		return err
	}
	what, text := memoPrompt, spec.Prompt
	if spec.Command != "" {
		what, text = memoCommand, spec.Command
	}
	_, err = c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:            workflows.AutomationScheduleID(spec.Name),
		Spec:          ss,
		Overlap:       enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: AutomationCatchupWindow,
		Memo:          map[string]any{memoAutomation: spec.Name, memoWhen: when.String(), what: workflows.OneLine(text, 400)},
		Action: &client.ScheduleWorkflowAction{
			ID:            workflows.AutomationRunPrefix(spec.Name),
			Workflow:      workflows.AutomationWorkflow,
			Args:          []any{spec},
			TaskQueue:     spec.TaskQueue,
			StaticSummary: "automation " + spec.Name + ": " + workflows.OneLine(text, 160),
			StaticDetails: fmt.Sprintf("automation `%s` · %s · %s · cwd `%s`", spec.Name, when, what, spec.Config.Cwd),
		},
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("%w: %s (remove it first, or pick another name)", ErrAutomationExists, spec.Name)
	}
	if err != nil {
		return fmt.Errorf("creating the schedule: %w", err)
	}
	return nil
}

// Automation is an automation as listed.
type Automation struct {
	Name      string      `json:"name"`
	When      string      `json:"schedule"`
	Prompt    string      `json:"prompt,omitempty"`
	Command   string      `json:"command,omitempty"`
	Paused    bool        `json:"paused"`
	NextTimes []time.Time `json:"next_times,omitempty"`
	// Runs are the last runs (show only), oldest first.
	Runs []AutomationRunInfo `json:"runs,omitempty"`
	// Detail (show only).
	NewThread bool   `json:"new_thread,omitempty"`
	ThreadID  string `json:"thread_id,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Model     string `json:"model,omitempty"`
	Sandbox   string `json:"sandbox_mode,omitempty"`
	Approval  string `json:"approval_policy,omitempty"`
	Actions   int    `json:"runs_started"`
	Skipped   int    `json:"skipped_overlap"`
	Missed    int    `json:"missed_catchup"`
}

// AutomationRunInfo is one run: when it fired, how it ended (or that it
// still runs, or waits for an approval).
type AutomationRunInfo struct {
	WorkflowID  string    `json:"workflow_id"`
	ScheduledAt time.Time `json:"scheduled_at"`
	StartedAt   time.Time `json:"started_at"`
	// Status is the run's result's, or "running".
	Status string                   `json:"status"`
	Result *workflows.AutomationRun `json:"result,omitempty"`
	// ThreadID is the thread of a prompt run.
	ThreadID string `json:"thread_id,omitempty"`
	// Approvals are what a running run's turn waits for.
	Approvals []workflows.Approval `json:"approvals,omitempty"`
}

// ListAutomations lists the automations.
func ListAutomations(ctx context.Context, c client.Client) ([]Automation, error) {
	it, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return nil, fmt.Errorf("listing schedules: %w", err)
	}
	var out []Automation
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("listing schedules: %w", err)
		}
		name := workflows.AutomationNameOf(e.ID)
		if name == "" {
			continue
		}
		a := Automation{Name: name, Paused: e.Paused, NextTimes: e.NextActionTimes}
		fromMemo(&a, e.Memo)
		out = append(out, a)
	}
	return out, nil
}

func fromMemo(a *Automation, m *commonpb.Memo) {
	for k, p := range m.GetFields() {
		var s string
		if converter.GetDefaultDataConverter().FromPayload(p, &s) != nil {
			continue
		}
		switch k {
		case memoWhen:
			a.When = s
		case memoPrompt:
			a.Prompt = s
		case memoCommand:
			a.Command = s
		}
	}
}

// ShowAutomation describes an automation with its last runs.
func ShowAutomation(ctx context.Context, c client.Client, name string) (Automation, error) {
	a := Automation{Name: name}
	d, spec, err := describeAutomation(ctx, c, name)
	if err != nil {
		return a, err
	}
	fromMemo(&a, d.Memo)
	a.Prompt, a.Command = spec.Prompt, spec.Command
	a.NewThread, a.Cwd, a.Model = spec.NewThread, spec.Config.Cwd, spec.Config.Model
	a.Sandbox, a.Approval = spec.Config.SandboxMode, spec.Config.ApprovalPolicy
	if spec.Prompt != "" && !spec.NewThread {
		a.ThreadID = workflows.AutomationThreadID(name)
	}
	if d.Schedule.State != nil {
		a.Paused = d.Schedule.State.Paused
	}
	a.NextTimes = d.Info.NextActionTimes
	a.Actions, a.Skipped, a.Missed = d.Info.NumActions, d.Info.NumActionsSkippedOverlap, d.Info.NumActionsMissedCatchupWindow
	for _, r := range d.Info.RecentActions {
		if r.StartWorkflowResult != nil {
			a.Runs = append(a.Runs, runInfo(ctx, c, spec, r))
		}
	}
	return a, nil
}

// runInfo reads how one run went.
func runInfo(ctx context.Context, c client.Client, spec workflows.AutomationSpec, r client.ScheduleActionResult) AutomationRunInfo {
	id, runID := r.StartWorkflowResult.WorkflowID, r.StartWorkflowResult.FirstExecutionRunID
	info := AutomationRunInfo{WorkflowID: id, ScheduledAt: r.ScheduleTime, StartedAt: r.ActualTime}
	if spec.Prompt != "" {
		info.ThreadID = workflows.AutomationRunThread(spec, runID)
	}
	desc, err := c.DescribeWorkflowExecution(ctx, id, runID)
	if err != nil {
		info.Status = "unknown (" + err.Error() + ")"
		return info
	}
	st := desc.GetWorkflowExecutionInfo().GetStatus()
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		info.Status = "running"
		if info.ThreadID != "" {
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			info.Approvals, _ = PendingApprovals(actx, c, info.ThreadID)
			cancel()
		}
		return info
	}
	var run workflows.AutomationRun
	if err := c.GetWorkflow(ctx, id, runID).Get(ctx, &run); err != nil {
		info.Status = "failed"
		info.Result = &workflows.AutomationRun{Status: workflows.StatusFailed, Error: err.Error()}
		return info
	}
	info.Status, info.Result = run.Status, &run
	return info
}

func describeAutomation(ctx context.Context, c client.Client, name string) (*client.ScheduleDescription, workflows.AutomationSpec, error) {
	var spec workflows.AutomationSpec
	if err := workflows.CheckAutomationName(name); err != nil {
		return nil, spec, err
	}
	d, err := c.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(name)).Describe(ctx)
	if err != nil {
		return nil, spec, scheduleErr(name, err)
	}
	act, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
	if !ok || len(act.Args) != 1 {
		return nil, spec, fmt.Errorf("schedule %s does not start an automation run", workflows.AutomationScheduleID(name))
	}
	p, ok := act.Args[0].(*commonpb.Payload)
	if !ok {
		return nil, spec, fmt.Errorf("schedule %s: unexpected argument", workflows.AutomationScheduleID(name))
	}
	if err := converter.GetDefaultDataConverter().FromPayload(p, &spec); err != nil {
		return nil, spec, fmt.Errorf("schedule %s: reading its automation: %w", workflows.AutomationScheduleID(name), err)
	}
	return d, spec, nil
}

func scheduleErr(name string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w: %s (see `interpreter automation list`)", ErrAutomationNotFound, name)
	}
	return err
}

// automationHandle is the schedule of an automation known to exist.
func automationHandle(ctx context.Context, c client.Client, name string) (client.ScheduleHandle, error) {
	if _, _, err := describeAutomation(ctx, c, name); err != nil {
		return nil, err
	}
	return c.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(name)), nil
}

// PauseAutomation stops the automation's firings (a running run goes
// on).
func PauseAutomation(ctx context.Context, c client.Client, name string) error {
	h, err := automationHandle(ctx, c, name)
	if err != nil {
		return err
	}
	return h.Pause(ctx, client.SchedulePauseOptions{Note: "paused by `interpreter automation pause`"})
}

// ResumeAutomation lets a paused automation fire again.
func ResumeAutomation(ctx context.Context, c client.Client, name string) error {
	h, err := automationHandle(ctx, c, name)
	if err != nil {
		return err
	}
	return h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: "resumed by `interpreter automation resume`"})
}

// TriggerAutomation fires the automation now (skipped, and counted so,
// when a run is running). running names that run.
func TriggerAutomation(ctx context.Context, c client.Client, name string) (running string, err error) {
	d, _, err := describeAutomation(ctx, c, name)
	if err != nil {
		return "", err
	}
	if len(d.Info.RunningWorkflows) > 0 {
		running = d.Info.RunningWorkflows[0].WorkflowID
	}
	h := c.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(name))
	return running, h.Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
}

// RemoveAutomation deletes the automation's schedule; a running run
// finishes, and the automation's thread stays (threads archive).
func RemoveAutomation(ctx context.Context, c client.Client, name string) error {
	h, err := automationHandle(ctx, c, name)
	if err != nil {
		return err
	}
	return h.Delete(ctx)
}
