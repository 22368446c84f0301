package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"
)

const (
	// UpdateSetName names a thread (a string; empty clears the name). The
	// name is kept in the thread's state and memo (MemoName), so listings
	// show it.
	UpdateSetName = "thread.set_name"
	// QueryThreadState returns the thread's whole [ThreadState]; an
	// archived thread's last state is what unarchiving starts from.
	QueryThreadState = "thread.state"
	// MemoName is the memo key of a thread's name.
	MemoName = "name"
	// maxThreadName bounds a thread's name.
	maxThreadName = 1000
)

func (t *thread) registerName(ctx workflow.Context) error {
	if err := t.registerInject(ctx); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryThreadState, func() (ThreadState, error) {
		return t.st, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateSetName,
		func(ctx workflow.Context, name string) error {
			t.st.Name = strings.TrimSpace(name)
			return workflow.UpsertMemo(ctx, map[string]any{MemoName: t.st.Name})
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, name string) error {
			if t.archived {
				return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
			}
			if len(name) > maxThreadName {
				return Refusal(ErrOverLimit, "name is %d bytes long; the limit is %d", len(name), maxThreadName)
			}
			return nil
		}})
}

// apply sets the timeouts that are set.
func (o *Timeouts) apply(c *ThreadConfig) {
	if o == nil {
		return
	}
	if o.Turn != nil && *o.Turn >= 0 {
		c.TurnTimeout = *o.Turn
	}
	if o.Stall != nil {
		c.StallTimeout = max(*o.Stall, 0)
	}
	if o.Approval != nil && *o.Approval >= 0 {
		c.ApprovalTimeout = *o.Approval
	}
}
