package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
)

// Types of the Temporal application errors with which threads and turns
// refuse an update (their validators return them, so they never reach
// history). Front ends branch on the type, never on the text: package
// frontend/threads maps each to a sentinel error for errors.Is.
const (
	// ErrTurnRunning: the thread runs a turn (start a turn, archive,
	// compact).
	ErrTurnRunning = "TurnRunning"
	// ErrTurnWaiting: the thread has a turn waiting to start.
	ErrTurnWaiting = "TurnWaiting"
	// ErrThreadArchived: the thread is archived.
	ErrThreadArchived = "ThreadArchived"
	// ErrCompacting: the thread is compacting its context.
	ErrCompacting = "Compacting"
	// ErrNoActiveTurn: the turn a steer names is finishing.
	ErrNoActiveTurn = "NoActiveTurn"
	// ErrWrongTurn: a steer names another turn than the one running.
	ErrWrongTurn = "WrongTurn"
	// ErrSteerRefused: a steer's input is refused (empty, too large, sent
	// to another thread).
	ErrSteerRefused = "SteerRefused"
	// ErrOverLimit: a value is over its limit (a thread name's length).
	ErrOverLimit = "OverLimit"
)

// Refusal is a refusal of type errType (one of the Err constants) whose
// message is the format's: what the client is shown.
func Refusal(errType, format string, args ...any) error {
	return temporal.NewApplicationError(fmt.Sprintf(format, args...), errType)
}
