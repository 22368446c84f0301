package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"
)

// A thread's status while its turn waits for a person. The turn tells its
// thread when an approval starts and stops waiting (one signal each), and
// the thread shows it where people look with no client attached: its
// status search attribute (`interpreter threads list`, the Temporal UI's
// list) reads waiting_for_approval, and its current details (the UI's
// thread page) say what waits and how to answer. A continuation turn of a
// goal that nobody follows is the case this is for.

const (
	// SignalApprovalWaiting: a turn's approval started or stopped waiting
	// ([ApprovalWaiting]); sent by the turn to its thread.
	SignalApprovalWaiting = "approval.waiting"
	// StatusWaitingApproval is a thread's status while its running turn
	// waits for an approval.
	StatusWaitingApproval = "waiting_for_approval"
	// approvalStatusChange is the version marker of the signal (turn side)
	// and the status upserts (thread side).
	approvalStatusChange = "approval-status"
)

// ApprovalWaiting is the payload of [SignalApprovalWaiting].
type ApprovalWaiting struct {
	TurnID string `json:"turn_id"`
	ItemID string `json:"item_id"`
	// What is the command or change that waits, on one line.
	What string `json:"what,omitempty"`
	// Answer is how to decide from a shell.
	Answer string `json:"answer,omitempty"`
	Done   bool   `json:"done,omitempty"`
}

// tellThreadWaiting tells the thread that started the turn (its parent
// workflow) that an approval waits, or no longer does. It does not hold
// up the turn.
func (t *turn) tellThreadWaiting(ctx workflow.Context, a Approval, done bool) {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil || workflow.GetVersion(ctx, approvalStatusChange, workflow.DefaultVersion, 1) < 1 {
		return
	}
	what := a.Command
	if a.Kind != "command" || what == "" {
		what = a.Kind + " " + a.Reason
	}
	msg := ApprovalWaiting{TurnID: a.TurnID, ItemID: a.ItemID, What: oneLine(what, 200), Answer: a.Answer, Done: done}
	workflow.Go(ctx, func(ctx workflow.Context) {
		_ = workflow.SignalExternalWorkflow(ctx, parent.ID, "", SignalApprovalWaiting, msg).Get(ctx, nil)
	})
	details := ""
	if !done {
		details = "**waiting for approval** · " + a.ItemID + ": `" + oneLine(what, 200) + "`\n\n" + a.Answer
	}
	workflow.SetCurrentDetails(ctx, details)
}

// registerApprovalStatus listens for its turns' approval waits.
func (t *thread) registerApprovalStatus(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalApprovalWaiting)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var m ApprovalWaiting
			ch.Receive(ctx, &m)
			t.approvalWaiting(ctx, m)
		}
	})
}

func (t *thread) approvalWaiting(ctx workflow.Context, m ApprovalWaiting) {
	if m.TurnID != t.st.Running {
		return // the turn ended before its signal came
	}
	before := len(t.st.Waiting)
	kept := t.st.Waiting[:0:0]
	for _, w := range t.st.Waiting {
		if w.ItemID != m.ItemID {
			kept = append(kept, w)
		}
	}
	if !m.Done {
		kept = append(kept, m)
	}
	t.st.Waiting = kept
	if workflow.GetVersion(ctx, approvalStatusChange, workflow.DefaultVersion, 1) < 1 {
		return
	}
	t.showDetails(ctx)
	if !t.st.Config.SearchAttributes || (before == 0) == (len(kept) == 0) {
		return
	}
	status := StatusInProgress
	if len(kept) > 0 {
		status = StatusWaitingApproval
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx, SAStatus.ValueSet(status))
}

// approvalsEnded forgets the waits of a turn that ended (its last
// signal may never come).
func (t *thread) approvalsEnded(ctx workflow.Context) {
	if len(t.st.Waiting) == 0 {
		return
	}
	t.st.Waiting = nil
	t.showDetails(ctx)
}

// showDetails sets the thread's current details in the Temporal UI: what
// waits for a person, then its goal.
func (t *thread) showDetails(ctx workflow.Context) {
	var parts []string
	for _, w := range t.st.Waiting {
		parts = append(parts, fmt.Sprintf("**waiting for approval** · %s: `%s`\n\n%s", w.ItemID, w.What, w.Answer))
	}
	if t.st.Goal != nil {
		parts = append(parts, goalDetails(t.st.Goal))
	}
	workflow.SetCurrentDetails(ctx, strings.Join(parts, "\n\n"))
}
