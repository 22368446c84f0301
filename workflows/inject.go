package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

const (
	// UpdateInjectItems adds entries to an idle thread's model-visible
	// history ([InjectItemsRequest]; app-server thread/inject_items, the
	// TUI's side conversations): the next turn sends them before its
	// prompt. Refused while a turn runs or waits, and for an archived
	// thread.
	UpdateInjectItems = "thread.inject_items"
	// maxInjectedEntries bounds one injection.
	maxInjectedEntries = 64
)

// Entry is one entry of a conversation as the model sees it.
type Entry = harness.Entry

// InjectItemsRequest is the payload of [UpdateInjectItems].
type InjectItemsRequest struct {
	Entries []Entry `json:"entries"`
}

// registerInject installs [UpdateInjectItems]. Histories recorded before
// it never carry the update, so they replay as they did.
func (t *thread) registerInject(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateInjectItems,
		func(ctx workflow.Context, r InjectItemsRequest) error {
			t.st.Unsent = append(t.st.Unsent, r.Entries...)
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r InjectItemsRequest) error {
			switch {
			case t.archived:
				return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
			case t.st.Running != "":
				return Refusal(ErrTurnRunning, "thread %s is running turn %s; items can be injected once it ends", t.id, t.st.Running)
			case len(t.st.Queue) > 0:
				return Refusal(ErrTurnWaiting, "thread %s has turn %s waiting to start", t.id, t.st.Queue[0].TurnID)
			case len(r.Entries) > maxInjectedEntries:
				return Refusal(ErrOverLimit, "%d items; at most %d may be injected at once", len(r.Entries), maxInjectedEntries)
			}
			size := 0
			for _, e := range r.Entries {
				size += len(e.Text) + len(e.Arguments)
			}
			if size > MaxInputBytes {
				return Refusal(ErrOverLimit, "the items hold %d bytes of text; the limit is %d", size, MaxInputBytes)
			}
			return nil
		}})
}
