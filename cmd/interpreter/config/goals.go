package config

import (
	"github.com/interpreter-dev/interpreter/workflows"
)

// Goals holds [goals]: the bounds of a thread's goal (see
// docs/goals.md). max_goal_token_budget is Codex's key; the others are
// ours.
type Goals struct {
	// MaxTurns bounds the turns a goal runs from the time it became
	// active (default 100); past it the goal stops as usageLimited.
	MaxTurns int `toml:"max_turns"`
	// MaxDuration bounds the time its turns run, likewise (default 24h).
	MaxDuration Duration `toml:"max_duration"`
	// MaxFailedTurns failed turns in a row block the goal (default 3).
	MaxFailedTurns int `toml:"max_failed_turns"`
	// MaxGoalTokenBudget bounds the token budget a goal may be given
	// (0: no bound).
	MaxGoalTokenBudget int64 `toml:"max_goal_token_budget"`
	// ApprovalWait bounds how long an approval of a continuation turn
	// waits; past it the goal is blocked (0: as any approval waits).
	ApprovalWait Duration `toml:"approval_wait"`
}

// GoalsOn tells whether threads take goals ([features] goals; on unless
// set false, as in Codex 0.171).
func (c *Config) GoalsOn() bool {
	return c.Features.Goals == nil || *c.Features.Goals
}

// GoalsConfig is what a new thread's goals run with; nil when goals are
// off.
func (c *Config) GoalsConfig() *workflows.GoalsConfig {
	if !c.GoalsOn() {
		return nil
	}
	g := c.Goals
	return &workflows.GoalsConfig{MaxTurns: g.MaxTurns, MaxDuration: g.MaxDuration.Duration,
		MaxFailedTurns: g.MaxFailedTurns, MaxTokenBudget: g.MaxGoalTokenBudget, ApprovalWait: g.ApprovalWait.Duration}
}
