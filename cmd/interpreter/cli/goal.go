package cli

import (
	"context"
	"errors"
	"fmt"

	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// GoalCmd manages a thread's goal (docs/goals.md).
type GoalCmd struct {
	Set    GoalSetCmd    `cmd:"" help:"Set a thread's goal: it keeps working on it, turn after turn, until it is complete, blocked, paused or out of budget."`
	Show   GoalShowCmd   `cmd:"" help:"Show a thread's goal."`
	Pause  GoalPauseCmd  `cmd:"" help:"Pause a thread's goal: the running turn ends as usual, no continuation follows."`
	Resume GoalResumeCmd `cmd:"" help:"Make a thread's goal active again: the next continuation starts when the thread is idle."`
	Clear  GoalClearCmd  `cmd:"" help:"Remove a thread's goal."`
}

// GoalSetCmd sets a goal.
type GoalSetCmd struct {
	ID          string `arg:"" help:"Thread id."`
	Objective   string `arg:"" help:"What must be true when the goal is done."`
	TokenBudget int64  `name:"token-budget" help:"Stop the goal as budgetLimited once its turns spent this many tokens (0: no budget)."`
}

// Run sets the goal and prints it.
func (c *GoalSetCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	r := workflows.GoalSetRequest{Objective: c.Objective, Status: workflows.GoalActive, Origin: workflows.GoalByUser}
	if c.TokenBudget > 0 {
		r.TokenBudget = &c.TokenBudget
	}
	return changeGoal(ctx, g, stdio, c.ID, r)
}

// GoalPauseCmd pauses a goal.
type GoalPauseCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run pauses the goal.
func (c *GoalPauseCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	return changeGoal(ctx, g, stdio, c.ID, workflows.GoalSetRequest{Status: workflows.GoalPaused, Origin: workflows.GoalByUser})
}

// GoalResumeCmd makes a goal active again.
type GoalResumeCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run resumes the goal.
func (c *GoalResumeCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	return changeGoal(ctx, g, stdio, c.ID, workflows.GoalSetRequest{Status: workflows.GoalActive, Origin: workflows.GoalByUser})
}

func changeGoal(ctx context.Context, g *Globals, stdio Stdio, id string, r workflows.GoalSetRequest) error {
	if err := workflows.CheckThreadID(id); err != nil {
		return exitf(2, "%v", err)
	}
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	goal, err := threads.SetGoal(ctx, b.client, id, r)
	if err != nil {
		return goalExit(id, err)
	}
	execfe.PrintGoal(stdio.Out, &goal)
	return nil
}

// GoalShowCmd shows a goal.
type GoalShowCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run prints the goal, or says there is none.
func (c *GoalShowCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	if err := workflows.CheckThreadID(c.ID); err != nil {
		return exitf(2, "%v", err)
	}
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	goal, err := threads.ReadGoal(ctx, b.client, c.ID)
	if err != nil {
		return goalExit(c.ID, err)
	}
	if goal == nil {
		fmt.Fprintf(stdio.Out, "thread %s has no goal\n", c.ID)
		return nil
	}
	execfe.PrintGoal(stdio.Out, goal)
	return nil
}

// GoalClearCmd removes a goal.
type GoalClearCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run clears the goal.
func (c *GoalClearCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	if err := workflows.CheckThreadID(c.ID); err != nil {
		return exitf(2, "%v", err)
	}
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	cleared, err := threads.ClearGoal(ctx, b.client, c.ID)
	if err != nil {
		return goalExit(c.ID, err)
	}
	if !cleared {
		fmt.Fprintf(stdio.Out, "thread %s had no goal\n", c.ID)
		return nil
	}
	fmt.Fprintf(stdio.Out, "goal of %s cleared\n", c.ID)
	return nil
}

func goalExit(id string, err error) error {
	if errors.Is(err, threads.ErrGoalRefused) {
		return exitf(1, "%v", err)
	}
	return threadExit(id, err)
}
