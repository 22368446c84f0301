package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ThreadsCmd groups the commands that read and manage threads. They use
// only Temporal visibility, workflow queries and updates, so they work
// against any cluster that runs interpreter workers.
type ThreadsCmd struct {
	List      ThreadsListCmd      `cmd:"" help:"List threads (open ones, newest first)."`
	Show      ThreadsShowCmd      `cmd:"" help:"Show a thread: its turns, their items and token usage."`
	Events    ThreadsEventsCmd    `cmd:"" help:"Print the event log of a thread's turns as JSON lines."`
	Compact   ThreadsCompactCmd   `cmd:"" help:"Compact an idle thread's context now: the model summarizes it, later turns start from the summary."`
	Archive   ThreadsArchiveCmd   `cmd:"" help:"Archive an idle thread: its workflow completes and it leaves the list."`
	Interrupt ThreadsInterruptCmd `cmd:"" help:"Stop a thread's running turn (it ends as interrupted)."`
	Delete    ThreadsDeleteCmd    `cmd:"" help:"Delete a thread for good: its workflow runs, its turns, its sub-agents and the store blobs only they use."`
}

// threadsBackend loads the configuration and connects to the server.
func threadsBackend(ctx context.Context, g *Globals, stderr io.Writer) (*backend, *config.Config, error) {
	cfg, err := g.load(nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := connect(ctx, cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	return b, cfg, nil
}

// threadExit turns the errors of the thread helpers into exit errors.
func threadExit(threadID string, err error) error {
	switch {
	case errors.Is(err, threads.ErrThreadNotFound):
		return exitf(1, "thread not found: %s", threadID)
	case errors.Is(err, threads.ErrThreadArchived):
		return exitf(1, "thread %s is archived", threadID)
	}
	return exitf(1, "%v", rootCause(err))
}

// ThreadsListCmd lists threads from visibility.
type ThreadsListCmd struct {
	Cwd    string `help:"Only threads whose working directory is DIR." placeholder:"DIR"`
	Status string `help:"Only threads with this status: in_progress, waiting_for_approval (its turn waits for a person), completed, failed, interrupted (the last turn's), idle (no turn yet) or archived." placeholder:"S"`
	All    bool   `help:"Include closed (archived, terminated) threads."`
	Limit  int    `default:"50" help:"At most this many threads."`
	JSON   bool   `name:"json" help:"One JSON object per line."`
}

// Run lists.
func (l *ThreadsListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	switch l.Status {
	case "", workflows.StatusInProgress, workflows.StatusWaitingApproval, workflows.StatusCompleted, workflows.StatusFailed, workflows.StatusInterrupted, workflows.StatusArchived, threads.StatusIdle:
	default:
		return exitf(2, "invalid --status %q: valid values are in_progress, waiting_for_approval, completed, failed, interrupted, idle, archived", l.Status)
	}
	opts := threads.ListOptions{Status: l.Status, All: l.All, Limit: l.Limit}
	if l.Cwd != "" {
		abs, err := filepath.Abs(l.Cwd)
		if err != nil {
			return exitf(2, "bad --cwd: %v", err)
		}
		opts.Cwd = abs
	}
	b, cfg, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	opts.SearchAttributes = hasSearchAttributes(ctx, b, cfg.Temporal.Namespace)
	if !opts.SearchAttributes {
		fmt.Fprintf(stdio.Err, "interpreter: namespace %s lacks the thread search attributes, so this reads every open thread; `interpreter setup` registers them (or prints what an admin must run)\n",
			cfg.Temporal.Namespace)
	}
	threads, err := threads.List(ctx, b.client, opts)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if l.JSON {
		enc := json.NewEncoder(stdio.Out)
		for _, t := range threads {
			if err := enc.Encode(t); err != nil {
				return err
			}
		}
		return nil
	}
	if len(threads) == 0 {
		fmt.Fprintln(stdio.Err, "no threads")
		return nil
	}
	return execfe.PrintThreadList(stdio.Out, threads)
}

// ThreadsShowCmd shows one thread.
type ThreadsShowCmd struct {
	ID   string `arg:"" help:"Thread id."`
	JSON bool   `name:"json" help:"Print one JSON object."`
}

// Run shows.
func (s *ThreadsShowCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	d, err := execfe.ReadThread(ctx, b.client, s.ID)
	if err != nil {
		return threadExit(s.ID, err)
	}
	if s.JSON {
		return json.NewEncoder(stdio.Out).Encode(d)
	}
	execfe.PrintThread(stdio.Out, d)
	return nil
}

// ThreadsEventsCmd prints the event log of a thread's turns.
type ThreadsEventsCmd struct {
	ID     string `arg:"" help:"Thread id."`
	Follow bool   `short:"f" help:"Then wait for new events of the running turn, until it ends."`
}

// Run prints the events, one JSON object per line.
func (e *ThreadsEventsCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	v, err := threads.Read(ctx, b.client, e.ID)
	if err != nil {
		return threadExit(e.ID, err)
	}
	enc := json.NewEncoder(stdio.Out)
	emit := func(ev workflows.Event) { _ = enc.Encode(ev) }
	for _, t := range v.Turns {
		if err := execfe.AllEvents(ctx, b.client, t.TurnID, emit); err != nil {
			return exitf(1, "reading the events of %s: %v", t.TurnID, rootCause(err))
		}
	}
	if v.RunningTurn == "" {
		if e.Follow {
			fmt.Fprintf(stdio.Err, "interpreter: no turn is running on thread %s\n", e.ID)
		}
		return nil
	}
	if !e.Follow {
		if err := execfe.AllEvents(ctx, b.client, v.RunningTurn, emit); err != nil {
			return exitf(1, "reading the events of %s: %v", v.RunningTurn, rootCause(err))
		}
		return nil
	}
	err = threads.FollowTurn(ctx, b.client, v.RunningTurn, 0, emit)
	if err != nil && ctx.Err() == nil {
		return exitf(1, "following %s: %v", v.RunningTurn, rootCause(err))
	}
	return nil
}

// ThreadsCompactCmd compacts a thread's context between turns.
type ThreadsCompactCmd struct {
	ID   string `arg:"" help:"Thread id."`
	JSON bool   `name:"json" help:"Print the result as one JSON object."`
}

// Run compacts.
func (c *ThreadsCompactCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	resp, err := threads.Compact(ctx, b.client, c.ID)
	if err != nil {
		return threadExit(c.ID, err)
	}
	if c.JSON {
		return json.NewEncoder(stdio.Out).Encode(resp)
	}
	fmt.Fprintf(stdio.Out, "compacted %s: %d entries -> %d, context ~%d -> ~%d tokens\nsummary:\n%s\n",
		c.ID, resp.EntriesBefore, resp.EntriesAfter, resp.TokensBefore, resp.TokensAfter, resp.Summary)
	return nil
}

// ThreadsArchiveCmd archives a thread.
type ThreadsArchiveCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run archives.
func (a *ThreadsArchiveCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := threads.Archive(actx, b.client, a.ID); err != nil {
		return threadExit(a.ID, err)
	}
	fmt.Fprintf(stdio.Out, "archived %s\n", a.ID)
	return nil
}
