package workflows

import (
	"strconv"

	"go.temporal.io/sdk/workflow"
)

const (
	// QueryBackgroundTerminals lists a thread's background terminals
	// ([BackgroundTerminal]): the sessions open when its last turn ended
	// (a running turn's own new sessions are listed once it ends).
	QueryBackgroundTerminals = "thread.background_terminals"
	// UpdateTerminateTerminal ends one ([TerminateTerminalRequest]); it
	// answers whether one was ended.
	UpdateTerminateTerminal = "thread.background_terminals.terminate"
	// UpdateCleanTerminals ends them all; it answers how many.
	UpdateCleanTerminals = "thread.background_terminals.clean"
)

// BackgroundTerminal is a listed background terminal.
type BackgroundTerminal struct {
	ProcessID string `json:"process_id"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd,omitempty"`
	ItemID    string `json:"item_id,omitempty"`
	TTY       bool   `json:"tty,omitempty"`
}

// TerminateTerminalRequest is the payload of [UpdateTerminateTerminal].
type TerminateTerminalRequest struct {
	ProcessID string `json:"process_id"`
}

// ErrBadProcessID is the refusal of a process id that is not one.
const ErrBadProcessID = "BadProcessID"

// bgRegister installs the query and the updates; they add nothing to a
// history until one is sent.
func (t *thread) bgRegister(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryBackgroundTerminals, func() ([]BackgroundTerminal, error) {
		out := make([]BackgroundTerminal, 0, len(t.st.ExecSessions))
		for _, s := range t.st.ExecSessions {
			out = append(out, BackgroundTerminal{ProcessID: itoa(s.ID), Command: s.Command, Cwd: s.Cwd, ItemID: s.ItemID, TTY: s.TTY})
		}
		return out, nil
	}); err != nil {
		return err
	}
	if err := t.endedRegister(ctx); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateTerminateTerminal, t.bgTerminate,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r TerminateTerminalRequest) error {
			if _, err := strconv.Atoi(r.ProcessID); err != nil {
				return Refusal(ErrBadProcessID, "invalid background terminal process id: %q", r.ProcessID)
			}
			return t.bgRefusal()
		}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateCleanTerminals, t.bgClean,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error { return t.bgRefusal() }})
}

func (t *thread) bgRefusal() error {
	if t.archived {
		return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
	}
	return nil
}

func (t *thread) bgTerminate(ctx workflow.Context, r TerminateTerminalRequest) (bool, error) {
	id, _ := strconv.Atoi(r.ProcessID)
	s, ok := t.bgSession(id)
	if !ok {
		return false, nil
	}
	t.bgOn(ctx)
	t.bgEnd(ctx, s)
	return true, nil
}

func (t *thread) bgClean(ctx workflow.Context) (int, error) {
	all := append([]ExecSession(nil), t.st.ExecSessions...)
	if len(all) == 0 {
		return 0, nil
	}
	t.bgOn(ctx)
	for _, s := range all {
		t.bgEnd(ctx, s)
	}
	return len(all), nil
}

// bgEnd ends a session a person terminated and tells the model (not a
// wake-up: the person knows).
func (t *thread) bgEnd(ctx workflow.Context, s ExecSession) {
	running := t.st.Running != ""
	t.bgClose(ctx, s)
	if running {
		t.st.BgEnded = append(t.st.BgEnded, s.ID)
	}
	t.bgTell(ctx, s.ID, bgTerminatedText(s), false)
}
