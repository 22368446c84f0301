package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// MemoryCmd groups the memory commands.
type MemoryCmd struct {
	Consolidate MemoryConsolidateCmd `cmd:"" help:"Merge the threads' raw memories into MEMORY.md now (waits for a consolidation already running)."`
}

// MemoryConsolidateCmd runs a consolidation.
type MemoryConsolidateCmd struct {
	JSON bool `name:"json" help:"Print the result as one JSON object."`
}

// Run consolidates.
func (m *MemoryConsolidateCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	mo, err := cfg.MemorySettings()
	if err != nil {
		return exitf(2, "%v", err)
	}
	b, err := connect(ctx, cfg, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	res, err := threads.ConsolidateMemories(ctx, b.client, cfg.Temporal.TaskQueue, workflows.ConsolidateRequest{MaxUnusedDays: mo.MaxUnusedDays})
	if err != nil {
		return exitf(1, "%v", rootCause(err))
	}
	if m.JSON {
		return json.NewEncoder(stdio.Out).Encode(res)
	}
	if res.Broken != "" {
		fmt.Fprintf(stdio.Err, "interpreter: %s did not parse (%s); it was kept as %s and rebuilt from the raw memories\n", res.File, res.Problem, res.Broken)
	}
	fmt.Fprintf(stdio.Out, "%s: %d entries (%d new, %d dropped as unused for %d days), %d raw memories merged\n",
		res.File, res.Entries, res.Added, res.Dropped, mo.MaxUnusedDays, res.Merged)
	if !mo.Enabled {
		fmt.Fprintf(stdio.Err, "interpreter: note: memories are off ([memories] enabled = true turns them on), so threads neither write nor read them\n")
	}
	return nil
}
