package appserver

import (
	"context"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BackgroundTerminals lists a thread's background terminals
// ([TerminalsBackend]).
func (a *TemporalBackend) BackgroundTerminals(ctx context.Context, threadID string) ([]workflows.BackgroundTerminal, error) {
	return threads.BackgroundTerminals(ctx, a.Client, threadID)
}

// EndedTerminals lists how a thread's last background terminals ended.
func (a *TemporalBackend) EndedTerminals(ctx context.Context, threadID string) ([]workflows.EndedTerminal, error) {
	return threads.EndedTerminals(ctx, a.Client, threadID)
}

// TerminateTerminal ends one of a thread's background terminals.
func (a *TemporalBackend) TerminateTerminal(ctx context.Context, threadID, processID string) (bool, error) {
	return threads.TerminateTerminal(ctx, a.Client, threadID, processID)
}

// CleanTerminals ends all of a thread's background terminals.
func (a *TemporalBackend) CleanTerminals(ctx context.Context, threadID string) (int, error) {
	return threads.CleanTerminals(ctx, a.Client, threadID)
}
