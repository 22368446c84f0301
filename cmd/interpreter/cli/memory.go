package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// memorySettings is the [memories] section:
//
//	[memories]
//	enabled = true               # off by default
//	idle_after = "10m"           # a thread idle this long has its memory extracted
//	consolidate_every = "1h"     # the Schedule of consolidations
//	max_unused_days = 30         # entries no thread stated for this long are dropped
type memorySettings struct {
	Enabled          bool
	IdleAfter        time.Duration
	ConsolidateEvery time.Duration
	MaxUnusedDays    int
}

func memoryOptions(cfg *config.Config) (memorySettings, error) {
	m := memorySettings{IdleAfter: workflows.DefaultMemoryIdle, ConsolidateEvery: time.Hour, MaxUnusedDays: 30}
	sec := cfg.Memories
	if v, ok := sec["enabled"]; ok {
		b, ok := v.(bool)
		if !ok {
			return m, fmt.Errorf("invalid memories.enabled: want true or false")
		}
		m.Enabled = b
	}
	for key, dst := range map[string]*time.Duration{"idle_after": &m.IdleAfter, "consolidate_every": &m.ConsolidateEvery} {
		v, ok := sec[key]
		if !ok {
			continue
		}
		var d config.Duration
		s, isString := v.(string)
		if !isString {
			s = fmt.Sprint(v)
		}
		if err := d.UnmarshalText([]byte(s)); err != nil || d.Duration <= 0 {
			return m, fmt.Errorf("invalid memories.%s %v: want a positive duration such as \"10m\"", key, v)
		}
		*dst = d.Duration
	}
	if v, ok := sec["max_unused_days"]; ok {
		n, ok := v.(int64)
		if !ok || n <= 0 {
			return m, fmt.Errorf("invalid memories.max_unused_days %v: want a positive number of days", v)
		}
		m.MaxUnusedDays = int(n)
	}
	return m, nil
}

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
	mo, err := memoryOptions(cfg)
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
