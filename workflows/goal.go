package workflows

import (
	"time"
)

// Goals: an objective a thread keeps working on by itself. While a goal
// is active and the thread is idle, the thread starts a continuation turn
// (goalthread.go); the model reports progress with the goal tools
// (goalturn.go); people set, pause, resume and clear it with the messages
// below. All of it lives in [ThreadState.Goal], so continue-as-new and any
// crash keep it.

// Message names of goals.
const (
	// UpdateSetGoal creates or changes the thread's goal ([GoalSetRequest]);
	// it returns the goal as it is then ([Goal]). Setting an active goal
	// on an idle thread starts a turn.
	UpdateSetGoal = "thread.goal.set"
	// UpdateClearGoal removes the thread's goal; it returns whether there
	// was one (bool). A running turn goes on; no continuation follows.
	UpdateClearGoal = "thread.goal.clear"
	// QueryGoal returns the thread's goal (*Goal, nil when there is none).
	QueryGoal = "thread.goal"
	// SignalGoalRequest: a turn asks its thread to run a goal tool
	// ([GoalRequest]); the thread answers with [SignalGoalReply].
	SignalGoalRequest = "goal.request"
	// SignalGoalReply carries the thread's answer ([GoalReply]) to the
	// turn that asked.
	SignalGoalReply = "goal.reply"
	// MemoGoal is the memo key of the goal's status and objective, as
	// listings and the Temporal UI show it.
	MemoGoal = "goal"
)

// Goal statuses, as Codex 0.171 names them (ThreadGoalStatus).
const (
	GoalActive        = "active"
	GoalPaused        = "paused"
	GoalBlocked       = "blocked"
	GoalUsageLimited  = "usageLimited"
	GoalBudgetLimited = "budgetLimited"
	GoalComplete      = "complete"
)

// GoalStatuses lists the valid statuses.
var GoalStatuses = []string{GoalActive, GoalPaused, GoalBlocked, GoalUsageLimited, GoalBudgetLimited, GoalComplete}

// Origins of a goal change (Codex's ThreadGoalMutationOrigin, plus the
// model's own).
const (
	GoalByUser      = "user"
	GoalByAutomatic = "automatic"
	GoalByModel     = "model"
)

// Goal is a thread's goal. The first fields are Codex's ThreadGoal; the
// others are how the thread bounds it.
type Goal struct {
	Objective string `json:"objective"`
	Status    string `json:"status"`
	// TokenBudget, when set, stops the goal as budgetLimited once
	// TokensUsed reaches it.
	TokenBudget *int64 `json:"token_budget,omitempty"`
	// TokensUsed and TimeUsedSeconds count the turns that ran while the
	// goal was active (input plus output tokens; the turns' workflow time).
	TokensUsed      int64     `json:"tokens_used"`
	TimeUsedSeconds int64     `json:"time_used_seconds"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	// Reason says why the goal stopped (a limit, failing turns, a
	// person), for the people who read it; empty while it is active.
	Reason string `json:"reason,omitempty"`
	// Origin is who made the last change (GoalByUser...).
	Origin string `json:"origin,omitempty"`
	// Continuations counts the continuation turns the thread started for
	// the goal; Run the turns since it last became active.
	Continuations int     `json:"continuations,omitempty"`
	Run           GoalRun `json:"run"`
	// Seq grows with every change, so a reader can tell one change from
	// the next.
	Seq int `json:"seq"`
}

// GoalRun is what the usage bounds count: the turns, seconds and failed
// turns in a row since the goal last became active.
type GoalRun struct {
	Turns    int   `json:"turns,omitempty"`
	Seconds  int64 `json:"seconds,omitempty"`
	Failures int   `json:"failures,omitempty"`
}

// GoalsConfig turns goals on for a thread and bounds them ([goals] in
// config.toml); nil: goals are off (the goal tools are not offered and
// [UpdateSetGoal] is refused).
type GoalsConfig struct {
	// MaxTurns bounds the turns, MaxDuration the turns' time, since the
	// goal last became active; past either it stops as usageLimited.
	// 0: [DefaultGoalMaxTurns], [DefaultGoalMaxDuration].
	MaxTurns    int           `json:"max_turns,omitempty"`
	MaxDuration time.Duration `json:"max_duration,omitempty"`
	// MaxFailedTurns failed turns in a row block the goal (0:
	// [DefaultGoalMaxFailedTurns]).
	MaxFailedTurns int `json:"max_failed_turns,omitempty"`
	// MaxTokenBudget bounds the token budget a goal may be given (0: no
	// bound); Codex's goals.max_goal_token_budget.
	MaxTokenBudget int64 `json:"max_token_budget,omitempty"`
	// ApprovalWait bounds how long a continuation turn's approval waits
	// for a person; past it the turn stops and the goal is blocked, with
	// the reason (0: as any turn's approvals wait).
	ApprovalWait time.Duration `json:"approval_wait,omitempty"`
}

// Defaults of [GoalsConfig].
const (
	DefaultGoalMaxTurns       = 100
	DefaultGoalMaxDuration    = 24 * time.Hour
	DefaultGoalMaxFailedTurns = 3
)

// maxGoalObjective bounds a goal's objective, in bytes.
const maxGoalObjective = 4000

// GoalSetRequest is the payload of [UpdateSetGoal]. Empty fields keep
// the goal's; a new objective (different from the goal's) starts a new
// goal with its counts at zero. Without a goal, Objective is required.
type GoalSetRequest struct {
	Objective string `json:"objective,omitempty"`
	Status    string `json:"status,omitempty"`
	// TokenBudget sets the budget; NoBudget removes it.
	TokenBudget *int64 `json:"token_budget,omitempty"`
	NoBudget    bool   `json:"no_budget,omitempty"`
	Origin      string `json:"origin,omitempty"`
}

// GoalRequest is the payload of [SignalGoalRequest].
type GoalRequest struct {
	TurnID string `json:"turn_id"`
	CallID string `json:"call_id"`
	// Tool is get_goal, create_goal or update_goal.
	Tool        string `json:"tool"`
	Objective   string `json:"objective,omitempty"`
	TokenBudget *int64 `json:"token_budget,omitempty"`
	Status      string `json:"status,omitempty"`
}

// GoalReply is the payload of [SignalGoalReply]: the goal after the call
// (nil: none), or why the call was refused.
type GoalReply struct {
	CallID string `json:"call_id"`
	Goal   *Goal  `json:"goal,omitempty"`
	Error  string `json:"error,omitempty"`
}

// withGoalDefaults fills the bounds left at zero.
func (c GoalsConfig) withDefaults() GoalsConfig {
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultGoalMaxTurns
	}
	if c.MaxDuration <= 0 {
		c.MaxDuration = DefaultGoalMaxDuration
	}
	if c.MaxFailedTurns <= 0 {
		c.MaxFailedTurns = DefaultGoalMaxFailedTurns
	}
	return c
}

// ValidGoalStatus reports whether s is a goal status.
func ValidGoalStatus(s string) bool {
	for _, v := range GoalStatuses {
		if v == s {
			return true
		}
	}
	return false
}
