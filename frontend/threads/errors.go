package threads

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Refusals: why a thread or turn refused a request. The errors this
// package returns for them satisfy errors.Is with one of these; they are
// recognised by the type of the *temporal.ApplicationError the workflow
// refused with (workflows.ErrTurnRunning...), and their text is the
// workflow's message alone, which is what a client is shown.
var (
	// ErrTurnRunning: the thread runs a turn.
	ErrTurnRunning = errors.New("a turn is running")
	// ErrTurnWaiting: the thread has a turn waiting to start.
	ErrTurnWaiting = errors.New("a turn is waiting to start")
	// ErrCompacting: the thread is compacting its context.
	ErrCompacting = errors.New("thread is compacting")
	// ErrNoActiveTurn: no turn runs that the request could go to.
	ErrNoActiveTurn = errors.New("no active turn")
	// ErrWrongTurn: another turn than the one named runs.
	ErrWrongTurn = errors.New("another turn is active")
	// ErrSteerRefused: a steer's input is refused.
	ErrSteerRefused = errors.New("steer refused")
	// ErrOverLimit: a value is over its limit.
	ErrOverLimit = errors.New("over the limit")
	// ErrNotArchived: the thread to bring back is not archived.
	ErrNotArchived = errors.New("thread is not archived")
)

// refusalKinds maps the workflows' application error types to the
// sentinels.
var refusalKinds = map[string]error{
	workflows.ErrTurnRunning:    ErrTurnRunning,
	workflows.ErrTurnWaiting:    ErrTurnWaiting,
	workflows.ErrThreadArchived: ErrThreadArchived,
	workflows.ErrCompacting:     ErrCompacting,
	workflows.ErrNoActiveTurn:   ErrNoActiveTurn,
	workflows.ErrWrongTurn:      ErrWrongTurn,
	workflows.ErrSteerRefused:   ErrSteerRefused,
	workflows.ErrOverLimit:      ErrOverLimit,
}

// refusal is a request refused for a reason callers branch on. Its text
// is the workflow's message alone; cause, if any, is what it wraps.
type refusal struct {
	kind  error
	msg   string
	cause error
}

// Refusal is an error of kind (one of the Err sentinels) whose text is
// msg: for refusals a front end (or its test double) makes itself.
func Refusal(kind error, msg string) error { return &refusal{kind: kind, msg: msg} }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == r.kind }
func (r *refusal) Unwrap() error        { return r.cause }

// typed turns a workflow's refusal, recognised by its application error
// type, into one errors.Is matches, with the workflow's message as its
// text (the application error's own text adds its type). Other errors
// pass unchanged.
func typed(err error) error {
	var app *temporal.ApplicationError
	if err == nil || !errors.As(err, &app) {
		return err
	}
	kind := refusalKinds[app.Type()]
	if kind == nil {
		return err
	}
	var r *refusal
	if errors.As(err, &r) {
		return err
	}
	return &refusal{kind: kind, msg: app.Message()}
}

// refusalKind is the kind of refusal err is, nil if none.
func refusalKind(err error) error {
	var r *refusal
	if errors.As(typed(err), &r) {
		return r.kind
	}
	return nil
}
