package config

import (
	"github.com/interpreter-dev/interpreter/workflows"
)

// BackgroundTerminals holds [background_terminals]: the bounds of the
// exec sessions that outlive their turn (see
// docs/background-terminals.md). The keys are ours.
type BackgroundTerminals struct {
	// MaxPerThread bounds the sessions a thread keeps open after a turn
	// (default 16); the least recently used beyond it are closed.
	MaxPerThread int `toml:"max_per_thread"`
	// IdleTimeout ends a session no call has used for this long
	// (default 1h).
	IdleTimeout Duration `toml:"idle_timeout"`
	// OutputBytes bounds the last output a wake-up shows the model
	// (default 4096, at most 16384).
	OutputBytes int `toml:"output_bytes"`
}

// BackgroundTerminalWakeup tells whether a background terminal's exit
// starts a turn ([features] background_terminal_wakeup; on unless set
// false).
func (c *Config) BackgroundTerminalWakeup() bool {
	return c.Features.BackgroundTerminalWakeup == nil || *c.Features.BackgroundTerminalWakeup
}

// BackgroundTerminalsConfig is what a new thread's background terminals
// run with.
func (c *Config) BackgroundTerminalsConfig() *workflows.BackgroundTerminalsConfig {
	b := c.BackgroundTerminals
	return &workflows.BackgroundTerminalsConfig{Wakeup: c.BackgroundTerminalWakeup(), MaxPerThread: b.MaxPerThread,
		IdleTimeout: b.IdleTimeout.Duration, OutputBytes: b.OutputBytes}
}
