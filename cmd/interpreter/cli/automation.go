package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// AutomationCmd manages automations: prompts and commands run on a
// Temporal Schedule (docs/automations.md).
type AutomationCmd struct {
	Add    AutomationAddCmd    `cmd:"" help:"Add an automation: a prompt (or --command) run every DURATION or on a cron spec."`
	List   AutomationListCmd   `cmd:"" help:"List the automations."`
	Show   AutomationShowCmd   `cmd:"" help:"Show an automation: its next times and its last runs."`
	Pause  AutomationPauseCmd  `cmd:"" help:"Pause an automation (a running run goes on)."`
	Resume AutomationResumeCmd `cmd:"" help:"Resume a paused automation."`
	Run    AutomationRunCmd    `cmd:"" help:"Fire an automation now (skipped when a run of it is running)."`
	Remove AutomationRemoveCmd `cmd:"" help:"Remove an automation (its thread stays)."`
}

// AutomationAddCmd adds an automation.
type AutomationAddCmd struct {
	Name      string        `arg:"" help:"Name: lower-case letters, digits, '-' and '_'."`
	Prompt    string        `arg:"" optional:"" help:"The prompt each run sends (or give --command)."`
	Every     time.Duration `help:"Run every DURATION (e.g. 30m, 2h)." placeholder:"DURATION"`
	Cron      string        `help:"Run on a cron spec (e.g. '0 9 * * 1-5'; UTC)." placeholder:"SPEC"`
	Cd        string        `short:"C" name:"cd" help:"Working directory of the runs." placeholder:"DIR"`
	NewThread bool          `name:"new-thread" help:"Start a fresh thread per run (default: one thread that carries its history from run to run)."`
	Model     string        `short:"m" help:"Model to use."`
	Sandbox   string        `short:"s" help:"Sandbox mode: read-only, workspace-write, danger-full-access."`
	Approval  string        `name:"approval-policy" help:"Approval policy: untrusted, on-failure, on-request, never."`
	Command   string        `help:"Run this shell command instead of a prompt (no model): 'CMD ARGS...'." placeholder:"CMD"`
	Timeout   time.Duration `help:"With --command: stop the command after this long (default 10m)."`
}

// Run adds the automation.
func (c *AutomationAddCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	if err := workflows.CheckAutomationName(c.Name); err != nil {
		return exitf(2, "%v", err)
	}
	if (c.Prompt == "") == (c.Command == "") {
		return exitf(2, "give either a PROMPT or --command 'CMD ARGS...'")
	}
	if c.Command != "" && (c.NewThread || c.Model != "") {
		return exitf(2, "--new-thread and --model are for prompts; a --command job runs no model")
	}
	e := ExecCmd{Model: c.Model, Sandbox: c.Sandbox, ApprovalPolicy: c.Approval}
	cfg, err := g.load(e.overrides())
	if err != nil {
		return err
	}
	tc, err := threadConfig(cfg, c.Cd)
	if err != nil {
		return err
	}
	b, err := connect(ctx, cfg, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	tc.SearchAttributes = hasSearchAttributes(ctx, b, cfg.Temporal.Namespace)
	spec := workflows.AutomationSpec{Name: c.Name, Prompt: c.Prompt, Command: c.Command, NewThread: c.NewThread,
		TaskQueue: cfg.Temporal.TaskQueue, Config: tc, CommandTimeout: c.Timeout}
	when := threads.When{Every: c.Every, Cron: c.Cron}
	if err := threads.AddAutomation(ctx, b.client, spec, when); err != nil {
		return automationExit(err)
	}
	fmt.Fprintf(stdio.Out, "automation %s added: %s, cwd %s, sandbox %s, approvals %s\n", c.Name, when, tc.Cwd, tc.SandboxMode, tc.ApprovalPolicy)
	return nil
}

func automationExit(err error) error {
	switch {
	case errors.Is(err, threads.ErrAutomationNotFound), errors.Is(err, threads.ErrAutomationExists):
		return exitf(1, "%v", err)
	}
	return exitf(1, "%v", rootCause(err))
}

// AutomationListCmd lists automations.
type AutomationListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array."`
}

// Run lists them.
func (c *AutomationListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	list, err := threads.ListAutomations(ctx, b.client)
	if err != nil {
		return automationExit(err)
	}
	if c.JSON {
		if list == nil {
			list = []threads.Automation{}
		}
		return json.NewEncoder(stdio.Out).Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdio.Out, "no automations (add one with `interpreter automation add`)")
	}
	for _, a := range list {
		printAutomationLine(stdio, a)
	}
	return nil
}

// AutomationShowCmd shows one automation.
type AutomationShowCmd struct {
	Name string `arg:"" help:"Automation name."`
	JSON bool   `name:"json" help:"Print one JSON object."`
}

// Run shows it.
func (c *AutomationShowCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	a, err := threads.ShowAutomation(ctx, b.client, c.Name)
	if err != nil {
		return automationExit(err)
	}
	if c.JSON {
		return json.NewEncoder(stdio.Out).Encode(a)
	}
	printAutomation(stdio, a)
	return nil
}

// AutomationPauseCmd pauses one.
type AutomationPauseCmd struct {
	Name string `arg:"" help:"Automation name."`
}

// Run pauses it.
func (c *AutomationPauseCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	return onAutomation(ctx, g, stdio, c.Name, "paused", threads.PauseAutomation)
}

// AutomationResumeCmd resumes one.
type AutomationResumeCmd struct {
	Name string `arg:"" help:"Automation name."`
}

// Run resumes it.
func (c *AutomationResumeCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	return onAutomation(ctx, g, stdio, c.Name, "resumed", threads.ResumeAutomation)
}

// AutomationRemoveCmd removes one.
type AutomationRemoveCmd struct {
	Name string `arg:"" help:"Automation name."`
}

// Run removes it.
func (c *AutomationRemoveCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	return onAutomation(ctx, g, stdio, c.Name, "removed", threads.RemoveAutomation)
}

// AutomationRunCmd fires one now.
type AutomationRunCmd struct {
	Name string `arg:"" help:"Automation name."`
}

// Run fires it.
func (c *AutomationRunCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	running, err := threads.TriggerAutomation(ctx, b.client, c.Name)
	if err != nil {
		return automationExit(err)
	}
	if running != "" {
		fmt.Fprintf(stdio.Out, "automation %s: a run is running (%s), so this firing is skipped\n", c.Name, running)
		return nil
	}
	fmt.Fprintf(stdio.Out, "automation %s fired (see `interpreter automation show %s`)\n", c.Name, c.Name)
	return nil
}

func onAutomation(ctx context.Context, g *Globals, stdio Stdio, name, done string, do func(context.Context, client.Client, string) error) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := do(ctx, b.client, name); err != nil {
		return automationExit(err)
	}
	fmt.Fprintf(stdio.Out, "automation %s %s\n", name, done)
	return nil
}
