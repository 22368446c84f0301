package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// maxApprovalDiff bounds the diff an approval carries.
const maxApprovalDiff = 32 << 10

// registerApprovals installs the decision update and the pending query.
func (t *turn) registerApprovals(ctx workflow.Context) error {
	t.decisions = map[string]string{}
	if err := workflow.SetQueryHandler(ctx, QueryApprovals, func() ([]Approval, error) {
		if len(t.st.AgentApprovals) == 0 {
			return t.st.Approvals, nil
		}
		return append(append([]Approval(nil), t.st.Approvals...), t.st.AgentApprovals...), nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecideApproval,
		func(ctx workflow.Context, d ApprovalDecision) (ApprovalResult, error) {
			t.decisions[d.ItemID] = d.Decision
			return ApprovalResult{ItemID: d.ItemID, Decision: d.Decision}, nil
		},
		workflow.UpdateHandlerOptions{Validator: t.validateDecision})
}

// validateDecision refuses, before anything is recorded, a decision that
// does not answer a pending approval of this thread exactly.
func (t *turn) validateDecision(ctx workflow.Context, d ApprovalDecision) error {
	if d.ThreadID != t.in.ThreadID {
		return fmt.Errorf("decision refused: it names thread %q, but this turn belongs to thread %s", d.ThreadID, t.in.ThreadID)
	}
	valid := false
	for _, v := range Decisions {
		valid = valid || d.Decision == v
	}
	if !valid {
		return fmt.Errorf("decision refused: unknown decision %q (valid: %s)", d.Decision, strings.Join(Decisions, ", "))
	}
	var pending []string
	for _, a := range t.st.Approvals {
		if a.ItemID == d.ItemID {
			if prev, ok := t.decisions[d.ItemID]; ok {
				return fmt.Errorf("decision refused: item %s was already decided (%s)", d.ItemID, prev)
			}
			return nil
		}
		pending = append(pending, a.ItemID)
	}
	if len(pending) == 0 {
		return fmt.Errorf("decision refused: no approval is pending on thread %s (item %s is not waiting)", t.in.ThreadID, d.ItemID)
	}
	return fmt.Errorf("decision refused: item %s of thread %s is not waiting for approval (pending: %s)",
		d.ItemID, t.in.ThreadID, strings.Join(pending, ", "))
}

// sessionApproved reports whether "approve for the session" covers a
// command prefix (and running it unsandboxed, when asked).
func (t *turn) sessionApproved(prefix string, unsandboxed bool) bool {
	for _, s := range t.st.SessionApprovals {
		if s.Prefix == prefix && (s.Unsandboxed || !unsandboxed) {
			return true
		}
	}
	return false
}

// ask records a pending approval, tells a person (an activity on the
// workspace host), and waits for the decision: a durable wait that holds
// no worker slot. It returns the decision and a note for the model; an
// interrupted turn returns decision "" (the caller ends the item).
func (t *turn) ask(ctx workflow.Context, it *Item, a Approval, prefix string) (string, string) {
	cfg := t.in.Config
	a.ThreadID, a.TurnID, a.ItemID = t.in.ThreadID, t.in.TurnID, it.ID
	a.RequestedAt = workflow.Now(ctx)
	a.Answer = fmt.Sprintf("interpreter approve %s %s --decision approve|approve_for_session|deny|abort", t.in.ThreadID, it.ID)
	if len(a.Diff) > maxApprovalDiff {
		a.Diff = a.Diff[:maxApprovalDiff] + "\n[... diff cut ...]\n"
	}
	def := cfg.ApprovalDefault
	if def == "" {
		def = DecisionDeny
	}
	if cfg.ApprovalTimeout > 0 {
		d := a.RequestedAt.Add(cfg.ApprovalTimeout)
		a.Deadline, a.DefaultDecision = &d, def
	}
	t.st.Approvals = append(t.st.Approvals, a)
	waiting := copyItem(it)
	waiting.Status = StatusAwaitingApproval
	t.log.add(Event{Type: EventApprovalRequested, Item: waiting, Approval: &a})
	t.tellRoot(ctx, a, false)
	t.tellThreadWaiting(ctx, a, false)

	nopts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             "approval · " + it.ID,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}
	notice := activities.ApprovalNotice{ThreadID: a.ThreadID, TurnID: a.TurnID, ItemID: a.ItemID, Kind: a.Kind,
		Command: a.Command, Cwd: a.Cwd, Diff: a.Diff, Reason: a.Reason, Unsandboxed: a.Unsandboxed, Answer: a.Answer}
	if a.Deadline != nil {
		notice.Deadline = a.Deadline.UTC().Format(time.RFC3339)
	}
	// The notice does not hold up the wait: a decision may come first.
	workflow.Go(ctx, func(gctx workflow.Context) {
		_ = t.onHost(gctx, nopts, acts.NotifyApproval,
			activities.NotifyInput{Notice: notice, NotifyCommand: cfg.NotifyCommand, WebhookURL: cfg.WebhookURL}, nil)
	})

	decided := func() bool { _, ok := t.decisions[a.ItemID]; return ok }
	var err error
	timedOut := false
	t.waiting++ // a person's wait does not count as a stall
	waitStart := workflow.Now(ctx)
	if cfg.ApprovalTimeout > 0 {
		var ok bool
		ok, err = awaitNamed(ctx, cfg.ApprovalTimeout, "wait for approval · "+it.ID, decided)
		timedOut = err == nil && !ok
	} else {
		err = workflow.Await(ctx, decided)
	}
	t.waiting--
	t.st.ApprovalWaitMs += workflow.Now(ctx).Sub(waitStart).Milliseconds()
	decision, note := t.decisions[a.ItemID], ""
	switch {
	case decided():
	case timedOut:
		decision = def
		note = fmt.Sprintf("no decision within %s; the default decision (%s) applied", cfg.ApprovalTimeout, def)
	case err != nil || ctx.Err() != nil:
		decision, note = "", "the turn was interrupted while waiting for approval"
	}
	delete(t.decisions, a.ItemID)
	for i, p := range t.st.Approvals {
		if p.ItemID == a.ItemID {
			t.st.Approvals = append(t.st.Approvals[:i:i], t.st.Approvals[i+1:]...)
			break
		}
	}
	a.Decision, a.Note = decision, note
	t.log.add(Event{Type: EventApprovalResolved, Item: copyItem(it), Approval: &a})
	t.tellRoot(ctx, a, true)
	t.tellThreadWaiting(ctx, a, true)
	switch decision {
	case DecisionApproveForSession:
		t.st.SessionApprovals = append(t.st.SessionApprovals, SessionApproval{Prefix: prefix, Unsandboxed: a.Unsandboxed})
	case DecisionAbort:
		t.aborted = errors.New("aborted by the user at the approval of " + it.ID)
	}
	return decision, note
}

// declined finishes an item that will not run and returns what the model
// reads.
func (t *turn) declined(it *Item, decision, note, what string) string {
	it.Status = StatusDeclined
	if decision == "" {
		it.Status = StatusInterrupted
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	switch decision {
	case "":
		return what + " was not run: the turn was interrupted while it waited for approval"
	case DecisionAbort:
		return what + " was not run: the user declined it and stopped the turn. Do not retry it."
	}
	msg := what + " was not run: the user declined it"
	if note != "" {
		msg += " (" + note + ")"
	}
	return msg + ". Find another way, or ask the user."
}
