package cli

import (
	"context"
	"fmt"

	"github.com/interpreter-dev/interpreter/worker"
)

// SetupCmd registers what a namespace needs once (the thread search
// attributes), or says what an admin must run where this client may not.
type SetupCmd struct {
	ClusterFlags `embed:""`
}

// Run registers and reports; it exits 1 when attributes are still missing.
func (s *SetupCmd) Run(ctx context.Context, g *Globals, io Stdio) error {
	cfg, err := g.load(s.overrides())
	if err != nil {
		return err
	}
	c, err := dial(ctx, cfg.Temporal, cfg.Temporal.Address, io.Err)
	if err != nil {
		return exitf(1, "%v", err)
	}
	defer c.Close()
	res := worker.EnsureSearchAttributes(ctx, c, cfg.Temporal.Namespace)
	if msg := res.Describe(cfg.Temporal.Address, cfg.Temporal.Namespace); msg != "" {
		if len(res.Missing) > 0 {
			fmt.Fprint(io.Err, msg)
			return exitf(1, "setup incomplete")
		}
		fmt.Fprint(io.Out, msg)
		return nil
	}
	fmt.Fprintf(io.Out, "namespace %s has the search attributes already\n", cfg.Temporal.Namespace)
	return nil
}
