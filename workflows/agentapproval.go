package workflows

import "go.temporal.io/sdk/workflow"

// Approvals of sub-agents reach the client of the root thread. A person
// follows the root's running turn; a sub-agent's turn that asks tells the
// root thread (one signal when it asks, one when it is decided), and the
// root thread puts a copy into its running turn's log
// ([EventAgentApprovalRequested], [EventAgentApprovalResolved]). The
// decision itself goes, as for any approval, to the sub-agent's turn
// ([UpdateDecideApproval]), whose validator takes it once. Nothing polls,
// and each thread's history grows by a few events per approval only.
const (
	// SignalAgentApproval: a sub-agent's turn asks for, or got, a
	// decision ([AgentApproval]); sent to its root thread, which passes
	// it on to its running turn.
	SignalAgentApproval = "agents.approval"

	// EventAgentApprovalRequested: a sub-agent's tool call waits for a
	// decision (Approval names the sub-agent's thread, turn and item).
	EventAgentApprovalRequested = "agent.approval.requested"
	// EventAgentApprovalResolved: that decision came.
	EventAgentApprovalResolved = "agent.approval.resolved"
)

// AgentApproval is the payload of [SignalAgentApproval].
type AgentApproval struct {
	Approval Approval `json:"approval"`
	Resolved bool     `json:"resolved,omitempty"`
}

// tellRoot passes a sub-agent's approval event on to its root thread. It
// does not hold up the turn: a root that is gone has no one to ask.
func (t *turn) tellRoot(ctx workflow.Context, a Approval, resolved bool) {
	if t.in.RootThread == "" || t.in.RootThread == t.in.ThreadID {
		return
	}
	a.Diff = cut(a.Diff, maxRelayedDiff)
	msg := AgentApproval{Approval: a, Resolved: resolved}
	workflow.Go(ctx, func(ctx workflow.Context) {
		_ = workflow.SignalExternalWorkflow(ctx, t.in.RootThread, "", SignalAgentApproval, msg).Get(ctx, nil)
	})
}

// maxRelayedDiff bounds the diff a relayed approval carries: the root's
// log holds it for a client to show, the sub-agent's keeps the whole.
const maxRelayedDiff = 8 << 10

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n[... diff cut ...]\n"
}

// relayAgentApprovals passes sub-agents' approval events to the running
// turn. Without one nobody follows the root; the approval still waits in
// the sub-agent's turn, where `interpreter approve` answers it.
func (t *thread) relayAgentApprovals(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalAgentApproval)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var m AgentApproval
			ch.Receive(ctx, &m)
			t.st.AgentApprovals = keptApprovals(t.st.AgentApprovals, m)
			if t.st.Running == "" {
				continue
			}
			turnID, child := t.st.Running, t.child
			workflow.Go(ctx, func(ctx workflow.Context) {
				if child != nil {
					// A turn just begun takes the signal once it runs;
					// one that did not start has the approval in its input.
					if child.GetChildWorkflowExecution().Get(ctx, nil) != nil {
						return
					}
				}
				_ = workflow.SignalExternalWorkflow(ctx, turnID, "", SignalAgentApproval, m).Get(ctx, nil)
			})
		}
	})
}

// keepAgentApproval keeps the sub-agents' approvals still pending, which
// a client that attaches later (thread/resume) reads with the turn's own.
func (t *turn) keepAgentApproval(m AgentApproval) {
	t.st.AgentApprovals = keptApprovals(t.st.AgentApprovals, m)
}

// keptApprovals is list with m's approval added (asked) or dropped
// (resolved).
func keptApprovals(list []Approval, m AgentApproval) []Approval {
	var kept []Approval
	for _, p := range list {
		if p.ThreadID != m.Approval.ThreadID || p.ItemID != m.Approval.ItemID {
			kept = append(kept, p)
		}
	}
	if !m.Resolved {
		kept = append(kept, m.Approval)
	}
	return kept
}

// registerAgentApprovals logs the sub-agents' approval events the thread
// passes on.
func (t *turn) registerAgentApprovals(ctx workflow.Context) {
	if t.in.State == nil {
		// Asked before this turn began (none was running, or the last
		// one ended): its client is asked now.
		for _, a := range t.in.AgentApprovals {
			t.keepAgentApproval(AgentApproval{Approval: a})
			t.log.add(Event{Type: EventAgentApprovalRequested, Approval: &a})
		}
	}
	ch := workflow.GetSignalChannel(ctx, SignalAgentApproval)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var m AgentApproval
			ch.Receive(ctx, &m)
			a := m.Approval
			typ := EventAgentApprovalRequested
			if m.Resolved {
				typ = EventAgentApprovalResolved
			}
			t.keepAgentApproval(m)
			t.log.add(Event{Type: typ, Approval: &a})
		}
	})
}
