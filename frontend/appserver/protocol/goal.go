package protocol

// Goals (thread/goal/*), as Codex 0.171 shapes them.

// Notification methods of goals.
const (
	MethodThreadGoalUpdated = "thread/goal/updated"
	MethodThreadGoalCleared = "thread/goal/cleared"
)

// ThreadGoal is a thread's goal; times are Unix seconds.
type ThreadGoal struct {
	ThreadID        string `json:"threadId"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	TokenBudget     *int64 `json:"tokenBudget"`
	TokensUsed      int64  `json:"tokensUsed"`
	TimeUsedSeconds int64  `json:"timeUsedSeconds"`
	CreatedAt       int64  `json:"createdAt"`
	UpdatedAt       int64  `json:"updatedAt"`
}

// ThreadGoalResponse answers thread/goal/get (Goal null: none).
type ThreadGoalResponse struct {
	Goal *ThreadGoal `json:"goal"`
}

// ThreadGoalSetResponse answers thread/goal/set.
type ThreadGoalSetResponse struct {
	Goal ThreadGoal `json:"goal"`
}

// ThreadGoalClearResponse answers thread/goal/clear.
type ThreadGoalClearResponse struct {
	Cleared bool `json:"cleared"`
}

// ThreadGoalUpdated tells a goal's new state; TurnID is the turn that
// changed it, when one did.
type ThreadGoalUpdated struct {
	ThreadID string     `json:"threadId"`
	TurnID   *string    `json:"turnId"`
	Goal     ThreadGoal `json:"goal"`
}

// ThreadGoalCleared tells that a thread's goal is gone.
type ThreadGoalCleared struct {
	ThreadID string `json:"threadId"`
}

func (ThreadGoalUpdated) Method() string { return MethodThreadGoalUpdated }
func (ThreadGoalCleared) Method() string { return MethodThreadGoalCleared }
