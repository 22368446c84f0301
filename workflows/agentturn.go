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
	return a != nil && a.Enabled
}

// agentTools are the sub-agent tools the turn offers: those of a harness
// whose CLI has its own, else Codex's.
func (t *turn) agentTools() []harness.ExternalTool {
	if !t.agentsOn() {
		return nil
	}
	if r := t.agentRunner(); r != nil {
		return r.AgentTools()
	}
	return codex.AgentTools()
}

// agentRunner is the turn's harness when it has a sub-agent tool of its
// own.
func (t *turn) agentRunner() harness.AgentRunner {
	h, err := harness.Lookup(t.in.Config.Harness)
	if err != nil {
		return nil
	}
	r, _ := h.(harness.AgentRunner)
	return r
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
	refusal := ""
	if x.Tool == harness.AgentRun {
		args, refusal = t.runArgs(args)
	}
	describeAgentCall(it.Agent, args)
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	req := AgentRequest{TurnID: t.in.TurnID, CallID: c.Call.CallID, Tool: x.Tool, Args: args, Config: t.in.Config, Code: t.in.Code}
	if args.ForkContext {
		req.Transcript, req.DocsDigest = t.st.Transcript, t.st.DocsDigest
	}
	var err error
	var rep AgentReply
	if refusal != "" {
		rep.Error = refusal
	} else {
		err = workflow.SignalExternalWorkflow(ctx, t.in.ThreadID, "", SignalAgentRequest, req).Get(ctx, nil)
	}
	if err == nil && refusal == "" {
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
		if x.Tool == harness.AgentRun {
			reply.Text = t.runResult(rep)
		}
	}
	it.Agent.Agents = rep.Agents
	for _, a := range rep.Agents {
		it.Agent.Receivers = appendNew(it.Agent.Receivers, a.ThreadID)
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return reply
}

// runArgs reads a foreground sub-agent call (Task, Agent) as the thread
// runs it: the prompt as the task, the CLI's agent type as a role.
func (t *turn) runArgs(a harness.AgentArgs) (harness.AgentArgs, string) {
	r := t.agentRunner()
	if r == nil {
		return a, "this harness has no foreground sub-agent tool"
	}
	role, refusal := r.AgentRole(a.SubagentType)
	if refusal != "" {
		return a, refusal
	}
	if a.Resume == "" {
		a.AgentType = role
	}
	a.Message, a.Items = a.Prompt, nil
	return a, ""
}

// runResult is what the model reads of a finished foreground run, in
// its CLI's words.
func (t *turn) runResult(rep AgentReply) string {
	res := harness.AgentResult{SubagentType: rep.SubagentType, Resumed: rep.Resumed}
	if len(rep.Agents) > 0 {
		res.AgentID, res.Message = rep.Agents[0].ThreadID, rep.Agents[0].Message
	}
	if r := t.agentRunner(); r != nil {
		return r.AgentResult(res)
	}
	return res.Message
}

// describeAgentCall fills what an item shows of a call before it runs.
func describeAgentCall(a *AgentCall, v harness.AgentArgs) {
	a.Prompt, _ = agentPrompt(v)
	a.Model, a.Effort = v.Model, v.Effort
	for _, id := range append([]string{v.Target, v.ID, v.Resume}, v.Targets...) {
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
