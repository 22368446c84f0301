package threads

import (
	"context"
	"errors"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// ErrBadProcessID: a background terminal's process id that is not one.
var ErrBadProcessID = errors.New("invalid background terminal process id")

// BackgroundTerminals lists a thread's background terminals: its exec
// sessions still open when its last turn ended.
func BackgroundTerminals(ctx context.Context, c client.Client, threadID string) ([]workflows.BackgroundTerminal, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return nil, err
	}
	settle(ctx, c, threadID)
	val, err := c.QueryWorkflow(ctx, threadID, "", workflows.QueryBackgroundTerminals)
	if err != nil {
		return nil, threadErr(threadID, err)
	}
	out := []workflows.BackgroundTerminal{}
	return out, val.Get(&out)
}

// EndedTerminals lists how a thread's last background terminals ended
// (exit code, last output, duration), oldest first.
func EndedTerminals(ctx context.Context, c client.Client, threadID string) ([]workflows.EndedTerminal, error) {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return nil, err
	}
	settle(ctx, c, threadID)
	val, err := c.QueryWorkflow(ctx, threadID, "", workflows.QueryEndedTerminals)
	if err != nil {
		return nil, threadErr(threadID, err)
	}
	out := []workflows.EndedTerminal{}
	return out, val.Get(&out)
}

// TerminateTerminal ends one of a thread's background terminals (its
// processes are killed, the model is told); it reports whether one was
// ended.
func TerminateTerminal(ctx context.Context, c client.Client, threadID, processID string) (bool, error) {
	var ok bool
	return ok, terminalsUpdate(ctx, c, threadID, workflows.UpdateTerminateTerminal,
		[]any{workflows.TerminateTerminalRequest{ProcessID: processID}}, &ok)
}

// CleanTerminals ends all of a thread's background terminals; it reports
// how many.
func CleanTerminals(ctx context.Context, c client.Client, threadID string) (int, error) {
	var n int
	return n, terminalsUpdate(ctx, c, threadID, workflows.UpdateCleanTerminals, nil, &n)
}

func terminalsUpdate(ctx context.Context, c client.Client, threadID, name string, args []any, out any) error {
	if err := workflows.CheckThreadID(threadID); err != nil {
		return err
	}
	settle(ctx, c, threadID)
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: threadID, UpdateName: name, Args: args, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return threadErr(threadID, terminalsErr(err))
	}
	return terminalsErr(h.Get(ctx, out))
}

func terminalsErr(err error) error {
	var app *temporal.ApplicationError
	if err != nil && errors.As(err, &app) && app.Type() == workflows.ErrBadProcessID {
		return &refusal{kind: ErrBadProcessID, msg: app.Message()}
	}
	return typed(err)
}
