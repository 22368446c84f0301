package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ThreadsInterruptCmd stops a thread's running turn.
type ThreadsInterruptCmd struct {
	ID   string        `arg:"" help:"Thread id."`
	Wait time.Duration `default:"30s" help:"How long to wait for the turn to end (0: do not wait)."`
}

// Run interrupts the running turn and waits for it to end.
func (c *ThreadsInterruptCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	if err := workflows.CheckThreadID(c.ID); err != nil {
		return exitf(2, "%v", err)
	}
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	open, err := threads.Open(ctx, b.client, c.ID)
	if err != nil {
		return threadExit(c.ID, err)
	}
	if !open {
		return exitf(1, "thread %s is archived; it runs no turn", c.ID)
	}
	v, err := threads.Read(ctx, b.client, c.ID)
	if err != nil {
		return threadExit(c.ID, err)
	}
	if v.RunningTurn == "" {
		return exitf(1, "thread %s runs no turn: nothing to interrupt", c.ID)
	}
	if err := threads.Interrupt(ctx, b.client, c.ID); err != nil {
		return threadExit(c.ID, err)
	}
	if c.Wait <= 0 {
		fmt.Fprintf(stdio.Out, "interrupt sent to %s\n", v.RunningTurn)
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, c.Wait)
	defer cancel()
	res, err := threads.Outcome(wctx, b.client, v.RunningTurn)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return exitf(1, "interrupt sent, but %s has not ended within %s (is a worker running?)", v.RunningTurn, c.Wait)
	case err != nil:
		return exitf(1, "reading the result of %s: %v", v.RunningTurn, rootCause(err))
	}
	fmt.Fprintf(stdio.Out, "%s: %s\n", v.RunningTurn, res.Status)
	if res.Status != workflows.StatusInterrupted {
		fmt.Fprintf(stdio.Err, "interpreter: the turn ended %s before the interrupt reached it\n", res.Status)
	}
	return nil
}
