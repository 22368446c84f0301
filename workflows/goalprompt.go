package workflows

import (
	"fmt"
	"strings"
)

// continuationPrompt is the input of a continuation turn: the thread
// starts it by itself, without a new message (whether or not a client is
// attached: the thread cannot tell whether anyone reads along), so it
// tells the model where it stands and what is expected of it.
func continuationPrompt(g *Goal) string {
	var b strings.Builder
	b.WriteString("[goal continuation] The thread started this turn by itself, not in answer to a new message: its goal is still active. ")
	b.WriteString("Keep working towards the goal below from where the conversation stands; do not start over, and do not ask questions you could answer by looking.\n\n")
	b.WriteString("<goal_objective>\n")
	b.WriteString(g.Objective)
	b.WriteString("\n</goal_objective>\n\n")
	b.WriteString(fmt.Sprintf("Spent so far: %d tokens, %d seconds, over %d continuation turns", g.TokensUsed, g.TimeUsedSeconds, g.Continuations-1))
	if g.TokenBudget != nil {
		b.WriteString(fmt.Sprintf("; token budget %d (%d left)", *g.TokenBudget, max(*g.TokenBudget-g.TokensUsed, 0)))
	}
	b.WriteString(".\n\n")
	b.WriteString("Before you stop this turn, decide with evidence you produced in this conversation (command output, files read back, tests run):\n")
	b.WriteString("- every requirement of the objective is met now: call update_goal with status \"complete\", then say briefly what was done;\n")
	b.WriteString("- you cannot go on without something only a person can give, and you have tried the ways around it: call update_goal with status \"blocked\" and say what is needed;\n")
	b.WriteString("- otherwise: do the next useful piece of work and end the turn with a short note of what is left; the thread will start another turn.\n")
	b.WriteString("Do not set \"paused\" unless a person asked for it, and do not mark the goal complete because the budget is running out.")
	return b.String()
}

// queuedSummary heads a turn's page in the UI; a continuation turn says
// it is one, with its goal's objective.
func queuedSummary(q QueuedTurn) string {
	if !q.Goal {
		return turnSummary(q.Number, q.Request.Prompt)
	}
	return "turn " + itoa(q.Number) + " (goal continuation)"
}
