package workflows

import (
	"errors"

	"go.temporal.io/sdk/temporal"
)

// ErrTypeTurnFailed is the type of the error a failed turn's workflow
// ends with; its details hold the [TurnResult].
const ErrTypeTurnFailed = "TurnFailed"

// closeWith ends a turn's workflow with its result. The execution's
// status says how the turn ended, as the Temporal UI and
// its filters show it: a completed turn completes; a failed one fails
// with a non-retryable TurnFailed error whose message is the turn's
// error (red, counted as a failure); an interrupted one is canceled
// (grey). Both carry the result in their details, where its thread and
// the front ends read it ([TurnResultOf]).
func (t *turn) closeWith(res TurnResult) (TurnResult, error) {
	switch res.Status {
	case StatusFailed:
		msg := res.Error
		if msg == "" {
			msg = "turn failed"
		}
		return TurnResult{}, temporal.NewNonRetryableApplicationError(msg, ErrTypeTurnFailed, nil, res)
	case StatusInterrupted:
		return TurnResult{}, temporal.NewCanceledError(res)
	}
	return res, nil
}

// TurnResultOf reads the result of a turn from the error its workflow
// ended with, when it failed or was interrupted (see closeWith).
func TurnResultOf(err error) (TurnResult, bool) {
	var res TurnResult
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == ErrTypeTurnFailed && app.HasDetails() {
		return res, app.Details(&res) == nil && res.TurnID != ""
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) && canceled.HasDetails() {
		return res, canceled.Details(&res) == nil && res.TurnID != ""
	}
	return res, false
}
