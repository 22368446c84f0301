package harness

import (
	"encoding/json"
	"strings"
)

// SourceGoals are the goal tools (get_goal, create_goal, update_goal):
// the workflow answers them from its thread's goal.
const SourceGoals = "goals"

// Names of the goal tools, as Codex 0.171 names them.
const (
	ToolGetGoal    = "get_goal"
	ToolCreateGoal = "create_goal"
	ToolUpdateGoal = "update_goal"
)

// GoalStatuses the model may set with update_goal.
var GoalStatuses = []string{"complete", "blocked", "paused"}

// GoalArgs are the arguments of the goal tools, with Codex's names.
type GoalArgs struct {
	Objective   string `json:"objective,omitempty"`
	TokenBudget *int64 `json:"token_budget,omitempty"`
	Status      string `json:"status,omitempty"`
}

// DecodeGoalArgs reads a goal tool call's arguments; the message says,
// for the model, what is wrong with them.
func DecodeGoalArgs(raw string) (GoalArgs, string) {
	var a GoalArgs
	if strings.TrimSpace(raw) == "" {
		return a, ""
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return a, "invalid arguments: " + err.Error()
	}
	return a, ""
}

// GoalTools are the goal tools as every harness offers them. The rules on
// when a status may be set are in the descriptions, where the model reads
// them on every request.
func GoalTools() []ExternalTool {
	tool := func(name, desc string, params map[string]any) ExternalTool {
		return ExternalTool{Name: name, Description: desc, Parameters: params, Source: SourceGoals, Tool: name}
	}
	return []ExternalTool{
		tool(ToolGetGoal,
			"Returns this thread's goal: its objective, status, token budget, and the tokens and seconds spent on it so far "+
				"(goal is null when there is none). Call it when you need the full objective or want to check what is left of the budget.",
			Strict(nil)),
		tool(ToolCreateGoal,
			"Sets a goal for this thread: an objective that the thread keeps working on, turn after turn, with no one attached, "+
				"until it is complete, blocked, paused or out of budget. Create one only when the user asks you to work towards a goal "+
				"or to keep going on a long task; never on your own initiative. Fails when the thread already has a goal that is not complete.",
			Strict([]string{"objective"},
				P("objective", Str("What must be true when the goal is done, stated so that it can be checked.")),
				P("token_budget", Int("Optional: the most tokens the goal may spend before it stops as budgetLimited.")))),
		tool(ToolUpdateGoal,
			"Changes the status of this thread's goal. Set \"complete\" only when you have checked, against the objective's every "+
				"requirement, that it is met now (a test run, a file read back, a command's output), not because you have run out of "+
				"ideas, time or budget. Set \"blocked\" only when the same obstacle has stopped you in three goal turns in a row (the "+
				"turn that started the goal or resumed it counts) and you cannot go on without something only a person or the outside "+
				"world can change (an answer, an access, a decision); say what you need in your message. Hard or slow work is not "+
				"blocked. Set \"paused\" only when the user asks you to pause. You cannot resume a goal or set its limits: the user and "+
				"the system do that. Otherwise leave the goal active and keep working.",
			Strict([]string{"status"},
				P("status", Enum("The goal's new status.", GoalStatuses...)))),
	}
}
