package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// EventGoalUpdated: a goal tool of the turn changed the thread's goal
// (the event carries the [Goal] as it is now).
const EventGoalUpdated = "goal.updated"

// goalTools are the goal tools the turn offers: on when the thread takes
// goals, for harnesses that offer tools at all.
func (t *turn) goalTools() []harness.ExternalTool {
	if t.in.Config.Goals == nil {
		return nil
	}
	return harness.GoalTools()
}

// registerGoalReplies keeps the thread's answers to the turn's goal calls
// until the call that waits takes its own.
func (t *turn) registerGoalReplies(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalGoalReply)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r GoalReply
			ch.Receive(ctx, &r)
			if t.goalReplies == nil {
				t.goalReplies = map[string]GoalReply{}
			}
			t.goalReplies[r.CallID] = r
		}
	})
}

// runGoalTool runs a goal tool call: the thread owns the goal, so it
// answers, and the turn waits for that answer (a signal each way, both in
// history, so a replay or a crash repeats nothing).
func (t *turn) runGoalTool(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	reply := harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name}
	// Decoding the model's arguments into a struct is deterministic;
	// workflowcheck flags encoding/json's reflection caches.
	//workflowcheck:ignore
	args, bad := harness.DecodeGoalArgs(c.Call.Arguments)
	if bad != "" {
		reply.Text, reply.Error = bad, true
		return reply
	}
	req := GoalRequest{TurnID: t.in.TurnID, CallID: c.Call.CallID, Tool: x.Tool,
		Objective: args.Objective, TokenBudget: args.TokenBudget, Status: args.Status}
	err := workflow.SignalExternalWorkflow(ctx, t.in.ThreadID, "", SignalGoalRequest, req).Get(ctx, nil)
	if err == nil {
		err = workflow.Await(ctx, func() bool { _, ok := t.goalReplies[c.Call.CallID]; return ok })
	}
	rep := t.goalReplies[c.Call.CallID]
	delete(t.goalReplies, c.Call.CallID)
	switch {
	case err != nil && ctx.Err() != nil:
		reply.Text = "not done: the turn was interrupted"
	case err != nil:
		reply.Text, reply.Error = "error: "+rootMessage(err), true
	case rep.Error != "":
		reply.Text, reply.Error = "error: "+rep.Error, true
	default:
		reply.Text = goalToolOutput(rep.Goal)
		if x.Tool != harness.ToolGetGoal && rep.Goal != nil {
			t.log.add(Event{Type: EventGoalUpdated, Goal: rep.Goal})
		}
	}
	return reply
}

// goalToolOutput is the goal as the model reads it: JSON with Codex's
// field names.
func goalToolOutput(g *Goal) string {
	type goalJSON struct {
		Objective       string `json:"objective"`
		Status          string `json:"status"`
		TokenBudget     *int64 `json:"token_budget"`
		TokensUsed      int64  `json:"tokens_used"`
		TimeUsedSeconds int64  `json:"time_used_seconds"`
	}
	var out struct {
		Goal *goalJSON `json:"goal"`
	}
	if g != nil {
		out.Goal = &goalJSON{Objective: g.Objective, Status: g.Status, TokenBudget: g.TokenBudget,
			TokensUsed: g.TokensUsed, TimeUsedSeconds: g.TimeUsedSeconds}
	}
	// A struct encodes the same every time; workflowcheck flags
	// encoding/json's reflection caches.
	//workflowcheck:ignore
	b, _ := json.Marshal(out)
	return string(b)
}
