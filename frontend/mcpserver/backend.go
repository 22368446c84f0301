package mcpserver

import (
	"context"
	"fmt"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Backend is the durable agent as this server sees it: threads and turns
// living in Temporal workflows. The command wires it to the Temporal client;
// tests inject a fake.
type Backend interface {
	// NewThread creates a thread from the codex tool's arguments (cwd
	// already absolute) and starts its first turn.
	NewThread(ctx context.Context, args CodexArgs) (Started, error)
	// Reply starts a turn on an existing thread. It fails with an error
	// wrapping threads.ErrThreadNotFound when no thread has that id, and
	// with a *BusyError while the thread runs another turn.
	Reply(ctx context.Context, threadID, prompt string) (Started, error)
	// Follow calls fn for every event of the turn, in order, from its
	// first, until the turn ends or ctx is done. It returns the turn's
	// result when that came with the end (nil: ask Outcome).
	Follow(ctx context.Context, turnID string, fn func(workflows.Event)) (*workflows.TurnResult, error)
	// Outcome waits for the turn's result.
	Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error)
	// Interrupt stops the thread's running turn.
	Interrupt(ctx context.Context, threadID string) error
	// Decide delivers a decision for a pending approval.
	Decide(ctx context.Context, d workflows.ApprovalDecision) error
	// Live reads the output of the turn's running commands; nil when
	// there is no way to.
	Live(turnID string) LiveReader
}

// Started names a turn that was just accepted, with the config its thread
// runs with.
type Started struct {
	ThreadID string
	TurnID   string
	Config   workflows.ThreadConfig
	// Known is the turn's result when the thread answered the start with
	// it (a quick turn): its Tail holds every event, and nothing is read.
	Known *workflows.TurnResult
}

// BusyError says a thread is running another turn, so a new one cannot
// start yet.
type BusyError struct {
	ThreadID string
	TurnID   string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("thread %s is running turn %s", e.ThreadID, e.TurnID)
}
