package workflows

import (
	"slices"

	"github.com/interpreter-dev/interpreter/harness"
)

// withMode adds a turn's collaboration mode to the settings that turn
// starts with. The thread's own settings stay as they were: a mode lasts
// one turn, and a turn that names no mode runs without one. A request
// without a mode (every turn recorded before modes) leaves cfg alone, so
// no version marker is needed.
func withMode(cfg ThreadConfig, m *TurnMode) ThreadConfig {
	if m == nil {
		return cfg
	}
	if m.Instructions != "" {
		if cfg.DeveloperInstructions != "" {
			cfg.DeveloperInstructions += "\n\n"
		}
		cfg.DeveloperInstructions += m.Instructions
	}
	// A copy: the thread's slice must not grow with a turn's tools. A
	// tool the thread offers already keeps the thread's declaration.
	tools := slices.Clone(cfg.DynamicTools)
	for _, x := range m.Tools {
		if !slices.ContainsFunc(tools, func(y harness.ExternalTool) bool { return y.Name == x.Name }) {
			tools = append(tools, x)
		}
	}
	cfg.DynamicTools = tools
	return cfg
}
