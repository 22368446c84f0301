package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

// registerAgents listens for sub-agent requests of the thread's turns,
// reports of its sub-agents, and its own parent's close. Listening adds
// nothing to a history until such a signal comes, and only builds with
// sub-agents send them.
func (t *thread) registerAgents(ctx workflow.Context) {
	requests := workflow.GetSignalChannel(ctx, SignalAgentRequest)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r AgentRequest
			requests.Receive(ctx, &r)
			workflow.Go(ctx, func(ctx workflow.Context) { t.answerAgentRequest(ctx, r) })
		}
	})
	reports := workflow.GetSignalChannel(ctx, SignalAgentStatus)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r AgentReport
			reports.Receive(ctx, &r)
			t.takeReport(r)
			t.notifyParent(ctx, r)
		}
	})
	inputs := workflow.GetSignalChannel(ctx, SignalAgentInput)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var in AgentInput
			inputs.Receive(ctx, &in)
			t.takeInput(ctx, in)
		}
	})
	closes := workflow.GetSignalChannel(ctx, SignalAgentClose)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			closes.Receive(ctx, nil)
			t.closeSelf(ctx)
		}
	})
	t.relayAgentApprovals(ctx)
	t.registerTree(ctx)
}

func (t *thread) depth() int {
	if t.st.Parent == nil {
		return 0
	}
	return t.st.Parent.Depth
}

func (t *thread) rootID() string {
	if t.st.Parent == nil {
		return t.id
	}
	return t.st.Parent.RootID
}

func (t *thread) agent(id string) *SubAgent {
	for i := range t.st.Agents {
		if t.st.Agents[i].ID == id {
			return &t.st.Agents[i]
		}
	}
	return nil
}

func (t *thread) openAgents() int {
	n := 0
	for _, a := range t.st.Agents {
		if a.Status != AgentShutdown {
			n++
		}
	}
	return n
}

func (t *thread) answerAgentRequest(ctx workflow.Context, r AgentRequest) {
	rep := t.agentOp(ctx, r)
	rep.CallID = r.CallID
	// The turn may have ended meanwhile (interrupted): then no one waits.
	_ = workflow.SignalExternalWorkflow(ctx, r.TurnID, "", SignalAgentReply, rep).Get(ctx, nil)
}

func (t *thread) agentOp(ctx workflow.Context, r AgentRequest) AgentReply {
	switch r.Tool {
	case "spawn_agent":
		return t.spawnAgent(ctx, r)
	case "send_input":
		return t.sendInput(ctx, r)
	case "wait_agent":
		return t.waitAgents(ctx, r)
	case "close_agent":
		return t.closeAgent(ctx, r)
	case "resume_agent":
		return t.resumeAgent(ctx, r)
	case harness.AgentRun:
		return t.runAgent(ctx, r)
	}
	return AgentReply{Error: fmt.Sprintf("unknown sub-agent tool %q", r.Tool)}
}

func (t *thread) stateOf(id string) AgentState {
	a := t.agent(id)
	if a == nil {
		return AgentState{ThreadID: id, Status: AgentNotFound}
	}
	return AgentState{ThreadID: id, Nickname: a.Nickname, Role: a.Role, Model: a.Model, Status: a.Status, Message: a.Message}
}

// statusJSON is an agent status as Codex's tools return it: a string, or
// {"completed": message} / {"errored": message}.
func statusJSON(s AgentState) string {
	switch s.Status {
	case AgentCompleted:
		if s.Message == "" {
			return `{"completed":null}`
		}
		return "{" + jsonField("completed", jsonString(s.Message)) + "}"
	case AgentErrored:
		return "{" + jsonField("errored", jsonString(s.Message)) + "}"
	}
	return jsonString(s.Status)
}

func (t *thread) known(id string) (*SubAgent, string) {
	if id == "" {
		return nil, "target is required: an agent id from spawn_agent"
	}
	a := t.agent(id)
	if a == nil {
		return nil, fmt.Sprintf("no agent with id %q%s", id, t.knownList())
	}
	return a, ""
}

func (t *thread) knownList() string {
	if len(t.st.Agents) == 0 {
		return ": this thread has spawned no agents"
	}
	ids := make([]string, len(t.st.Agents))
	for i, a := range t.st.Agents {
		ids[i] = a.ID
	}
	return "; this thread's agents are " + strings.Join(ids, ", ")
}

func (t *thread) sendInput(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	ag, msg := t.known(a.Target)
	if ag == nil {
		return AgentReply{Error: msg}
	}
	if ag.Status == AgentShutdown {
		return AgentReply{Error: fmt.Sprintf("agent %s is closed; reopen it with resume_agent first", ag.ID)}
	}
	prompt, err := agentPrompt(a)
	if err != nil {
		return AgentReply{Error: err.Error()}
	}
	// Counted before it is sent: the agent's report of this turn may
	// come before the signal's acknowledgement does.
	id, prev, prevMsg := ag.ID, ag.Status, ag.Message
	ag.Sent++
	ag.Status, ag.Message = AgentRunning, ""
	sent := ag.Sent
	err = workflow.SignalExternalWorkflow(ctx, id, "", SignalAgentInput, AgentInput{Prompt: prompt, Interrupt: a.Interrupt}).Get(ctx, nil)
	if err != nil {
		if ag = t.agent(id); ag.Sent == sent && ag.Status == AgentRunning {
			ag.Sent--
			ag.Status, ag.Message = prev, prevMsg
		}
		return AgentReply{Error: "could not reach the agent: " + rootMessage(err)}
	}
	out := "{" + jsonField("submission_id", jsonString(TurnWorkflowID(id, sent))) + "}"
	return AgentReply{Output: out, Agents: []AgentState{t.stateOf(id)}}
}

// waitAgents waits, durably (a timer and the sub-agents' reports), for
// any of the targets to reach a final status.
func (t *thread) waitAgents(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	if len(a.Targets) == 0 {
		return AgentReply{Error: "targets is required: the ids of the agents to wait for"}
	}
	for _, id := range a.Targets {
		if ag, msg := t.known(id); ag == nil {
			return AgentReply{Error: msg}
		}
	}
	timeout := defaultWaitTimeout
	if a.TimeoutMs != nil {
		if *a.TimeoutMs <= 0 {
			return AgentReply{Error: "timeout_ms must be greater than zero"}
		}
		timeout = min(max(msDuration(*a.TimeoutMs), minWaitTimeout), maxWaitTimeout)
	}
	anyFinal := func() bool {
		return slices.ContainsFunc(a.Targets, func(id string) bool { return finalStatus(t.agent(id).Status) })
	}
	if !anyFinal() {
		_, _ = workflow.AwaitWithTimeout(ctx, timeout, anyFinal)
	}
	var fields []string
	var states []AgentState
	for _, id := range a.Targets {
		s := t.stateOf(id)
		states = append(states, s)
		if finalStatus(s.Status) && !slices.Contains(fields, jsonField(id, statusJSON(s))) {
			fields = append(fields, jsonField(id, statusJSON(s)))
		}
	}
	timedOut := "false"
	if len(fields) == 0 {
		timedOut = "true"
	}
	out := "{" + jsonField("status", "{"+strings.Join(fields, ",")+"}") + "," + jsonField("timed_out", timedOut) + "}"
	return AgentReply{Output: out, Agents: states}
}

func (t *thread) closeAgent(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	ag, msg := t.known(a.Target)
	if ag == nil {
		return AgentReply{Error: msg}
	}
	prev := t.stateOf(ag.ID)
	if ag.Status != AgentShutdown {
		t.shutDown(ctx, ag)
	}
	out := "{" + jsonField("previous_status", statusJSON(prev)) + "}"
	return AgentReply{Output: out, Agents: []AgentState{t.stateOf(ag.ID)}}
}

// shutDown closes one sub-agent (it closes its own) and marks it so.
func (t *thread) shutDown(ctx workflow.Context, ag *SubAgent) {
	id := ag.ID
	ag.Before, ag.Status = ag.Status, AgentShutdown
	counted := ag.Counted
	ag.Counted = false
	// An agent whose workflow is gone already is closed all the same.
	_ = workflow.SignalExternalWorkflow(ctx, id, "", SignalAgentClose, nil).Get(ctx, nil)
	if counted {
		t.freeSlot(ctx, id)
	}
}

func (t *thread) resumeAgent(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	ag, msg := t.known(a.ID)
	if ag == nil {
		return AgentReply{Error: strings.Replace(msg, "target is required", "id is required", 1)}
	}
	if ag.Status == AgentShutdown {
		lim := r.Config.Agents
		id := ag.ID
		if msg := t.treeLimit(ctx, id, lim.maxThreads(), threadLimitRefusal(lim.maxThreads(), "Close an agent first.")); msg != "" {
			return AgentReply{Error: msg}
		}
		ag = t.agent(id)
		cfg := r.Config
		if ag.Config != nil {
			cfg = *ag.Config
		}
		parent := AgentParent{ThreadID: t.id, RootID: t.rootID(), Depth: t.depth() + 1, Role: ag.Role, Nickname: ag.Nickname}
		st := &ThreadState{Config: cfg, Transcript: ag.Transcript, NextTurn: max(ag.NextTurn, 1), NextItem: ag.NextItem, Parent: &parent}
		in := ThreadInput{ThreadID: ag.ID, Config: cfg, Parent: &parent, State: st}
		if err := t.startAgent(ctx, in, ag.Nickname, ag.Role, "resumed"); err != nil {
			t.freeSlot(ctx, id)
			return AgentReply{Error: fmt.Sprintf("could not reopen agent %s (it may still be closing; try again): %s", id, rootMessage(err))}
		}
		ag = t.agent(id)
		ag.Counted = t.st.Parent != nil
		ag.Status = ag.Before
		if ag.Status == "" || ag.Status == AgentRunning || ag.Status == AgentPendingInit {
			ag.Status = AgentInterrupted
		}
		ag.Sent, ag.Done = st.NextTurn-1, st.NextTurn-1
	}
	out := "{" + jsonField("status", statusJSON(t.stateOf(ag.ID))) + "}"
	return AgentReply{Output: out, Agents: []AgentState{t.stateOf(ag.ID)}}
}

// takeReport records the end of a sub-agent's turn.
func (t *thread) takeReport(r AgentReport) {
	ag := t.agent(r.AgentID)
	if ag == nil {
		return
	}
	ag.Transcript, ag.NextTurn, ag.NextItem = r.Transcript, r.NextTurn, r.NextItem
	if ag.Status == AgentShutdown || r.Number < ag.Done {
		return
	}
	ag.Done = r.Number
	if ag.Done < ag.Sent {
		ag.Status = AgentRunning
		return
	}
	switch r.Status {
	case StatusCompleted:
		ag.Status, ag.Message = AgentCompleted, r.Message
	case StatusInterrupted:
		ag.Status, ag.Message = AgentInterrupted, ""
	default:
		ag.Status, ag.Message = AgentErrored, r.Message
	}
}

// reportTurn tells the parent of a sub-agent that one of its turns ended.
func (t *thread) reportTurn(ctx workflow.Context, res TurnResult) {
	p := t.st.Parent
	if p == nil {
		return
	}
	msg := res.FinalMessage
	if res.Status != StatusCompleted {
		msg = res.Error
	}
	if len(msg) > maxAgentMessageInReport {
		msg = msg[:maxAgentMessageInReport] + "\n[truncated]"
	}
	rep := AgentReport{AgentID: t.id, Number: res.Number, Status: res.Status, Message: msg,
		Transcript: t.st.Transcript, NextTurn: t.st.NextTurn, NextItem: t.st.NextItem}
	// A parent that is gone (archived) has no one to tell.
	_ = workflow.SignalExternalWorkflow(ctx, p.ThreadID, "", SignalAgentStatus, rep).Get(ctx, nil)
}

// takeInput queues a sub-agent's task from its parent. With Interrupt it
// replaces the running turn and any queued (their numbers are spent, so
// the parent, which counts what it sent, waits for this one).
func (t *thread) takeInput(ctx workflow.Context, in AgentInput) {
	if t.archived || strings.TrimSpace(in.Prompt) == "" {
		return
	}
	if in.Interrupt {
		t.st.Queue = nil
		if t.interrupt != nil {
			t.interrupt()
		}
	}
	_, _ = t.acceptTurn(ctx, StartTurnRequest{Prompt: in.Prompt})
}

// closeSelf closes this sub-agent: its own sub-agents first, then its
// running turn; the thread then ends as an archived one does.
func (t *thread) closeSelf(ctx workflow.Context) {
	t.closeAll(ctx)
	t.st.Queue = nil
	t.archived = true
	if t.interrupt != nil {
		t.interrupt()
	}
}

// closeAll closes every open sub-agent of the thread.
func (t *thread) closeAll(ctx workflow.Context) {
	for i := range t.st.Agents {
		if t.st.Agents[i].Status != AgentShutdown {
			t.shutDown(ctx, &t.st.Agents[i])
		}
	}
}

// jsonString quotes s as a JSON string. The tools' outputs are built by
// hand: encoding/json ranges over maps and reflects, which workflowcheck
// cannot tell apart from non-determinism.
func jsonString(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func jsonField(name, value string) string { return jsonString(name) + ":" + value }
