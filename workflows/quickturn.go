package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// A quick turn is a reply that its thread answers itself. A client that
// waits for a turn's end (MCP's codex-reply, an app-server turn/start)
// asks for the result in the update that starts the turn
// ([StartTurnRequest.WantResult]). When the thread is idle and the turn
// is plain (no images, no MCP servers, no sub-agents, goal, background
// terminal or memory, no compaction due), the thread runs the turn's
// first step in the workflow task that accepts the update: the skills
// discovery and the model call as local activities, the call with
// [quickModelBudget]. When the model answers at once without asking for
// a tool, the turn is over: the thread takes in its result and answers
// the update with it, events and all, and only then starts the turn's
// workflow, which records the same events from what the thread fetched
// ([TurnInput.Prefetched]) and closes in its first task. The client is
// answered without a child workflow's start, a task dispatch and a
// history read on its path.
//
// Otherwise what the thread fetched is not lost: the turn's workflow uses
// the skills and the model's answer (or takes over its stream) rather
// than doing either again, and the client follows it as before.

// quickTurnChange versions the quick turn.
const quickTurnChange = "thread.quick-turn"

// quickModelBudget is how long a quick turn's model call waits in the
// thread's task before it is handed off to the turn's workflow: short,
// since the update's answer (an app-server's turn/start response) waits
// for it.
const quickModelBudget = 100 * time.Millisecond

// quickEligible tells whether req may run as a quick turn now.
func (t *thread) quickEligible(req StartTurnRequest) bool {
	c := t.st.Config
	g := t.st.Goal
	return req.WantResult && len(req.Images) == 0 && req.RunKind == "" &&
		t.st.Running == "" && len(t.st.Queue) == 0 && !t.quickBusy && !t.archived && !t.compacting && !t.stopNext &&
		t.st.Transcript != "" && c.ModelCalls == ModelCallsAuto && !c.LocalModelCalls &&
		len(c.MCPServers) == 0 && !c.Memories && t.st.Parent == nil && len(t.st.Agents) == 0 &&
		len(t.st.TreeAgents) == 0 && len(t.st.AgentApprovals) == 0 && len(t.st.LateNotices) == 0 &&
		len(t.st.BgNotices) == 0 && len(t.st.ExecSessions) == 0 && (g == nil || g.Status != GoalActive)
}

// quickAfter waits, for a turn that may be quick and whose client saw the
// running turn end, until the thread has taken in that end (the running
// turn's workflow closes in a task or two). It tells whether the turn may
// still be quick; a turn that may not be queues at once, as before.
func (t *thread) quickAfter(ctx workflow.Context, req StartTurnRequest) bool {
	if !req.WantResult || t.st.Running == "" {
		return true
	}
	if !t.endedBy(req) && !t.turnEnded() || len(t.st.Queue) > 0 || t.quickBusy || t.quickWaiting {
		return false
	}
	if workflow.GetVersion(ctx, quickTurnChange, workflow.DefaultVersion, 1) != 1 {
		return false
	}
	t.quickWaiting = true
	defer func() { t.quickWaiting = false }()
	err := workflow.Await(ctx, func() bool { return t.st.Running == "" || len(t.st.Queue) > 0 })
	return err == nil
}

// quickTurn runs q's first step in this task and queues q with what it
// fetched; when that step ended the turn, the thread takes in its result
// and answers with it.
func (t *thread) quickTurn(ctx workflow.Context, q QueuedTurn) StartTurnResponse {
	t.quickBusy, t.afterEnded = true, false
	t.st.Running = q.TurnID
	defer func() { t.quickBusy, t.st.Running = false, "" }()
	t.applyOverrides(q.Request)
	goalAt := t.goalTurnStarted(ctx)
	in := t.turnInput(q)
	tu := quickRun(in)
	pre := &Prefetched{}
	if skills, ok := tu.quickSkills(ctx); ok {
		pre.Skills = &skills
		if tu.applySkills(skills) == nil && tu.quickTools(ctx) {
			pre.Model = tu.quickModel(ctx)
		}
	}
	in.Prefetched = pre
	q.Input = &in
	resp := StartTurnResponse{TurnID: q.TurnID, Number: q.Number}
	if res, ok := tu.quickResult(pre.Model); ok && !t.stopNext {
		q.Taken, in.Taken = true, true
		shown := res
		resp.Result = &shown
		t.takeIn(ctx, q, goalAt, res, false)
		usage := t.st.Usage
		resp.ThreadUsage = &usage
	}
	t.st.Queue = append(t.st.Queue, q)
	return resp
}

// recordTurn runs the workflow of a turn the thread took in already: it
// records the turn's events, which the thread answered with. Its result
// is the thread's.
func (t *thread) recordTurn(ctx workflow.Context, q QueuedTurn) {
	var res TurnResult
	err := workflow.ExecuteChildWorkflow(t.childOptions(ctx, q), TurnWorkflow, *q.Input).Get(ctx, &res)
	if err != nil {
		workflow.GetLogger(ctx).Warn("a quick turn's workflow did not complete", "turn", q.TurnID, "error", err)
	}
}

// quickRun is a turn as its workflow starts it, for the thread to run its
// first step (no handlers, no timers: the thread's task runs it).
func quickRun(in TurnInput) *turn {
	tu := &turn{in: in, st: newTurnState(in)}
	tu.log = newEventLog(nil, 0, in.TurnID)
	tu.log.add(Event{Type: EventTurnStarted})
	return tu
}

// quickSkills runs the skills discovery in this task, where the thread's
// worker is the workspace host (or any host will do); false when it is
// not, or the discovery failed (the turn's workflow then runs it).
func (t *turn) quickSkills(ctx workflow.Context) (activities.SkillsOutput, bool) {
	cfg := t.in.Config
	in := activities.SkillsInput{ThreadID: t.in.ThreadID, Cwd: cfg.Cwd, Docs: t.docsRequest(), Kind: t.in.RunKind}
	out, err := t.skillsHere(ctx, in)
	if err != nil || out.Elsewhere {
		return activities.SkillsOutput{}, false
	}
	return out, true
}

// quickTools prepares the turn's tools when that needs no activity: no
// MCP server (of the thread's or a skill's) to start.
func (t *turn) quickTools(ctx workflow.Context) bool {
	if len(t.st.SkillServers) > 0 || t.compactDue() {
		return false
	}
	return t.prepareTools(ctx) == nil && len(t.st.MCPServers) == 0
}

// compactDue tells whether the next step compacts the context first.
func (t *turn) compactDue() bool {
	limit := t.in.Config.AutoCompactTokenLimit
	return limit > 0 && t.st.ContextTokens >= limit && t.st.Transcript != ""
}

// quickModel makes the first step's model call in this task with
// [quickModelBudget]: the answer, its handoff, or nil when the attempt
// failed (the turn's workflow then makes the call with its retries).
func (t *turn) quickModel(ctx workflow.Context) *activities.ModelOutput {
	t.st.Step = 1
	out, err := t.callModelWithin(ctx, t.modelInput(ctx), quickModelBudget)
	if err != nil {
		return nil
	}
	return out
}

// quickResult ends the turn with the model's answer, as the turn's
// workflow will (see [TurnWorkflow]), when that answer ends it: a final
// message, no tool call, and every event fits the result's tail.
func (t *turn) quickResult(out *activities.ModelOutput) (TurnResult, bool) {
	if out == nil || out.Handoff != "" || len(out.Calls) > 0 {
		return TurnResult{}, false
	}
	t.st.Transcript = out.Transcript
	t.st.Pending = nil
	t.st.Usage.Add(out.Usage)
	t.st.ContextTokens = out.Usage.InputTokens + out.Usage.OutputTokens
	t.showAnswer(out)
	t.st.Final = out.Message
	res := t.result(StatusCompleted, "")
	if len(res.Tail) == 0 || res.Tail[0].Seq != 1 || len(res.Unsent) > 0 {
		return TurnResult{}, false
	}
	return res, true
}
