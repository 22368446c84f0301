package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

// Codex tells a parent's model when a sub-agent's turn ends: a user-role
// message <subagent_notification>{"agent_path":id,"status":status}
// </subagent_notification>, after the tool outputs of the parent's next
// request, even when wait_agent already returned that status (recorded
// from Codex 0.140, harness/codex/testdata/subagent_notification-0.140.json).
// The thread does the same for agents of
// the codex tools (Task and Agent return the result themselves): it
// passes the notice to its running turn ([SignalAgentNotice]), which sends
// it with its next model request, or keeps it for the next turn.
const (
	// SignalAgentNotice: a sub-agent's turn ended ([AgentNotice]); sent by
	// a thread to its running turn.
	SignalAgentNotice = "agents.notice"
)

// AgentNotice is the payload of [SignalAgentNotice].
type AgentNotice struct {
	Text string `json:"text"`
}

// noticeText is Codex's notification of a sub-agent's status.
func noticeText(s AgentState) string {
	return "<subagent_notification>\n{" + jsonField("agent_path", jsonString(s.ThreadID)) + "," +
		jsonField("status", statusJSON(s)) + "}\n</subagent_notification>"
}

// notifyParent tells the thread's model that an agent's turn ended, once
// the report made its status final (a turn queued behind it is not the
// end yet).
func (t *thread) notifyParent(ctx workflow.Context, r AgentReport) {
	ag := t.agent(r.AgentID)
	if ag == nil || ag.Foreground || ag.Done != r.Number || ag.Done < ag.Sent {
		return
	}
	switch ag.Status {
	case AgentCompleted, AgentErrored, AgentInterrupted:
	default: // closed meanwhile, or an old report
		return
	}
	t.passNotice(ctx, noticeText(t.stateOf(ag.ID)))
}

// passNotice gives a notice to the running turn, or keeps it for the next
// turn: when no turn runs, and when the turn closed before the notice
// reached it (the agent ended during the turn's last model call).
func (t *thread) passNotice(ctx workflow.Context, text string) {
	if t.st.Running == "" {
		t.st.Unsent = append(t.st.Unsent, harness.Entry{Kind: harness.KindUser, Text: text})
		return
	}
	turnID, child := t.st.Running, t.child
	workflow.Go(ctx, func(ctx workflow.Context) {
		if child != nil && child.GetChildWorkflowExecution().Get(ctx, nil) != nil {
			t.st.LateNotices = append(t.st.LateNotices, text)
			return
		}
		if err := workflow.SignalExternalWorkflow(ctx, turnID, "", SignalAgentNotice, AgentNotice{Text: text}).Get(ctx, nil); err != nil {
			t.st.LateNotices = append(t.st.LateNotices, text)
		}
	})
}

// takeLateNotices adds to what the next turn sends before its prompt
// (the last turn's unsent entries) the notices that came too late for it
// (taken: they are sent once).
func (t *thread) takeLateNotices() {
	if len(t.st.LateNotices) == 0 {
		return
	}
	out := append([]harness.Entry{}, t.st.Unsent...)
	for _, n := range t.st.LateNotices {
		out = append(out, harness.Entry{Kind: harness.KindUser, Text: n})
	}
	t.st.Unsent, t.st.LateNotices = out, nil
}

// registerNotices takes the notices the thread passes on; the next model
// request sends them after the tool outputs (see [turn.takeSteers]).
func (t *turn) registerNotices(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalAgentNotice)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var n AgentNotice
			ch.Receive(ctx, &n)
			t.st.Notices = append(t.st.Notices, n.Text)
		}
	})
}
