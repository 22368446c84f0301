package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	execfe "github.com/interpreter-dev/interpreter/frontend/exec"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ApproveCmd answers a pending approval: `interpreter approve THREAD ITEM
// --decision approve|approve_for_session|deny|abort`. Without ITEM it
// lists what the thread waits for.
type ApproveCmd struct {
	Thread   string `arg:"" help:"Thread id."`
	Item     string `arg:"" optional:"" help:"Item id of the pending approval (omit to list them)."`
	Decision string `help:"approve, approve_for_session, deny or abort." placeholder:"DECISION"`
}

// Run delivers the decision, or lists the pending approvals.
func (c *ApproveCmd) Run(ctx context.Context, g *Globals, io Stdio) error {
	if c.Item != "" && !validDecision(c.Decision) {
		return exitf(2, "--decision must be one of %s (got %q)", strings.Join(workflows.Decisions, ", "), c.Decision)
	}
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	// Never bring up a server here: the thread lives in the running one.
	if !probe(ctx, cfg.Temporal) {
		return exitf(1, "no Temporal server answers at %s: start the one that holds the thread (`interpreter dev`), or set temporal.address", cfg.Temporal.Address)
	}
	cl, err := dial(ctx, cfg.Temporal, cfg.Temporal.Address, io.Err)
	if err != nil {
		return exitf(1, "%v", err)
	}
	defer cl.Close()
	if c.Item == "" {
		list, err := threads.PendingApprovals(ctx, cl, c.Thread)
		if err != nil {
			return exitf(1, "%v", rootCause(err))
		}
		if len(list) == 0 {
			fmt.Fprintf(io.Out, "thread %s waits for no approval\n", c.Thread)
			return nil
		}
		for _, a := range list {
			execfe.PrintApproval(io.Out, a)
		}
		return nil
	}
	res, err := threads.Decide(ctx, cl, workflows.ApprovalDecision{ThreadID: c.Thread, ItemID: c.Item, Decision: c.Decision})
	if errors.Is(err, threads.ErrThreadNotFound) {
		return exitf(1, "thread not found: %s", c.Thread)
	}
	if err != nil {
		return exitf(1, "%v", rootCause(err))
	}
	fmt.Fprintf(io.Out, "%s: %s\n", res.ItemID, res.Decision)
	return nil
}

func validDecision(d string) bool {
	for _, v := range workflows.Decisions {
		if d == v {
			return true
		}
	}
	return false
}
