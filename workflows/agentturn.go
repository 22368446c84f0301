package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/codex"
)

// agentsOn tells whether the turn offers the sub-agent tools.
func (t *turn) agentsOn() bool {
	a := t.in.Config.Agents
	return t.in.Code >= subAgentCode && a != nil && a.Enabled
}

// agentTools are the sub-agent tools the turn offers.
func (t *turn) agentTools() []harness.ExternalTool {
	if !t.agentsOn() {
		return nil
	}
	return codex.AgentTools()
}

// registerAgentReplies keeps the thread's answers to the turn's sub-agent
// calls until the call that waits takes its own.
func (t *turn) registerAgentReplies(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalAgentReply)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r AgentReply
			ch.Receive(ctx, &r)
			if t.agentReplies == nil {
				t.agentReplies = map[string]AgentReply{}
			}
			t.agentReplies[r.CallID] = r
		}
	})
}

// runAgentTool runs a sub-agent tool call: the thread does the work (it
// owns the sub-agents), and the turn waits for its answer. A wait_agent
// is a wait of the thread's, bounded by its timeout; while it lasts the
// stall clock stops, as for any wait on others.
func (t *turn) runAgentTool(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	reply := harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name}
	it := t.newItem(ItemCollabAgentToolCall)
	it.CallID, it.Status = c.Call.CallID, StatusInProgress
	it.Agent = &AgentCall{Tool: x.Tool, SenderThreadID: t.in.ThreadID}
	var args harness.AgentArgs
	if c.Inv.Agent != nil {
		args = *c.Inv.Agent
	}
	describeAgentCall(it.Agent, args)
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	req := AgentRequest{TurnID: t.in.TurnID, CallID: c.Call.CallID, Tool: x.Tool, Args: args, Config: t.in.Config}
	err := workflow.SignalExternalWorkflow(ctx, t.in.ThreadID, "", SignalAgentRequest, req).Get(ctx, nil)
	var rep AgentReply
	if err == nil {
		t.waiting++
		err = workflow.Await(ctx, func() bool { _, ok := t.agentReplies[c.Call.CallID]; return ok })
		t.waiting--
		rep = t.agentReplies[c.Call.CallID]
		delete(t.agentReplies, c.Call.CallID)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		it.Status = StatusInterrupted
		reply.Text = "not done: the turn was interrupted"
	case err != nil:
		it.Status = StatusFailed
		reply.Text, reply.Error = "error: "+rootMessage(err), true
	case rep.Error != "":
		it.Status = StatusFailed
		it.Message = rep.Error
		reply.Text, reply.Error = rep.Error, true
	default:
		it.Status = StatusCompleted
		reply.Text = rep.Output
	}
	it.Agent.Agents = rep.Agents
	for _, a := range rep.Agents {
		it.Agent.Receivers = appendNew(it.Agent.Receivers, a.ThreadID)
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return reply
}

// describeAgentCall fills what an item shows of a call before it runs.
func describeAgentCall(a *AgentCall, v harness.AgentArgs) {
	a.Prompt, _ = agentPrompt(v)
	a.Model, a.Effort = v.Model, v.Effort
	for _, id := range append([]string{v.Target, v.ID}, v.Targets...) {
		if id != "" {
			a.Receivers = appendNew(a.Receivers, id)
		}
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
