package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

// runSlack is how much longer than the runtime limit a foreground run
// waits for its agent's report: the agent's own turn timeout ends it
// first; this only bounds a wait on an agent whose workflow is gone.
const runSlack = time.Minute

// runAgent is a foreground sub-agent call ([harness.AgentRun]: Claude
// Code's Task, kimi-cli's Agent): it spawns an agent, or reopens the one
// named by Resume and hands it the prompt, waits until that turn ends,
// and closes the agent, so a finished run holds no slot of max_threads.
// The wait also ends when the asking turn does (interrupted): the agent
// is closed then too. A failed or interrupted run is a refusal the model
// reads.
func (t *thread) runAgent(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	var id string
	resumed := a.Resume != ""
	if resumed {
		rep := t.reopenForRun(ctx, r)
		if rep.Error != "" {
			return rep
		}
		id = a.Resume
	} else {
		rep := t.spawnAgent(ctx, r)
		if rep.Error != "" {
			return rep
		}
		id = rep.Agents[0].ThreadID
		t.agent(id).SubagentType = a.SubagentType
	}
	t.agent(id).Foreground = true
	limit := r.Config.Agents.jobRuntime()
	if d := runTimeout(r); d > 0 {
		limit = min(limit, d)
	}
	ended := func() bool {
		switch t.agent(id).Status {
		case AgentRunning, AgentPendingInit:
			return t.st.Running != r.TurnID
		}
		return true
	}
	began := workflow.Now(ctx)
	ok, _ := workflow.AwaitWithTimeout(ctx, limit+runSlack, ended)
	took := workflow.Now(ctx).Sub(began)
	st := t.stateOf(id)
	if ag := t.agent(id); ag.Status != AgentShutdown {
		t.shutDown(ctx, ag)
	}
	rep := AgentReply{Agents: []AgentState{st}, Resumed: resumed, SubagentType: t.agent(id).SubagentType}
	switch {
	case !ok || (st.Status == AgentInterrupted && took >= limit):
		// Its own turn timeout ended it (or, with its workflow gone, the
		// wait did).
		rep.Error = fmt.Sprintf("Agent timed out after %ds.", int(limit.Seconds()))
	case st.Status == AgentErrored:
		rep.Error = "The agent failed: " + st.Message
	case st.Status == AgentCompleted && st.Message == "":
		rep.Error = "The agent finished without a final message."
	case st.Status != AgentCompleted:
		rep.Error = "The agent was stopped before it finished (" + st.Status + ")."
	}
	return rep
}

// runTimeout is a foreground run's own bound (kimi-cli's timeout, in
// seconds, kept within its 30 s .. 1 h), or 0.
func runTimeout(r AgentRequest) time.Duration {
	t := r.Args.Timeout
	if r.Tool != harness.AgentRun || t == nil || *t <= 0 {
		return 0
	}
	return time.Duration(min(max(*t, 30), 3600)) * time.Second
}

// reopenForRun gives a foreground run's prompt to an agent an earlier run
// started (kimi-cli's resume): reopened if it was closed, its
// conversation kept.
func (t *thread) reopenForRun(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	ag, msg := t.known(a.Resume)
	if ag == nil {
		return AgentReply{Error: msg}
	}
	switch ag.Status {
	case AgentRunning, AgentPendingInit:
		return AgentReply{Error: fmt.Sprintf("Agent instance %s is still running and cannot be resumed concurrently.", ag.ID)}
	case AgentShutdown:
		rep := t.resumeAgent(ctx, AgentRequest{TurnID: r.TurnID, CallID: r.CallID, Tool: "resume_agent",
			Args: harness.AgentArgs{ID: a.Resume}, Config: r.Config, Code: r.Code})
		if rep.Error != "" {
			return rep
		}
	}
	return t.sendInput(ctx, AgentRequest{TurnID: r.TurnID, CallID: r.CallID, Tool: "send_input",
		Args: harness.AgentArgs{Target: a.Resume, Message: a.Message}, Config: r.Config, Code: r.Code})
}
