package workflows

import "github.com/interpreter-dev/interpreter/harness"

// ThreadInput starts (or continues as new) a thread.
type ThreadInput struct {
	ThreadID string       `json:"thread_id"`
	Config   ThreadConfig `json:"config"`
	// State is set when the thread continued as new.
	State *ThreadState `json:"state,omitempty"`
}

// ThreadState is everything a thread carries: continue-as-new passes it
// whole.
type ThreadState struct {
	Config     ThreadConfig  `json:"config"`
	Transcript string        `json:"transcript,omitempty"`
	Turns      []TurnResult  `json:"turns,omitempty"`
	NextTurn   int           `json:"next_turn"`
	NextItem   int           `json:"next_item"`
	Usage      harness.Usage `json:"usage"`
	Queue      []QueuedTurn  `json:"queue,omitempty"`
	Running    string        `json:"running,omitempty"`
}

// QueuedTurn is an accepted turn that has not started yet.
type QueuedTurn struct {
	TurnID  string           `json:"turn_id"`
	Number  int              `json:"number"`
	Request StartTurnRequest `json:"request"`
}

// TurnInput starts (or continues as new) a turn.
type TurnInput struct {
	ThreadID   string       `json:"thread_id"`
	TurnID     string       `json:"turn_id"`
	Number     int          `json:"number"`
	Config     ThreadConfig `json:"config"`
	Prompt     string       `json:"prompt"`
	Transcript string       `json:"transcript,omitempty"`
	NextItem   int          `json:"next_item"`
	State      *TurnState   `json:"state,omitempty"`
}

// TurnState is everything a running turn carries across continue-as-new.
type TurnState struct {
	Step       int             `json:"step"`
	Transcript string          `json:"transcript,omitempty"`
	Pending    []harness.Entry `json:"pending,omitempty"`
	Events     []Event         `json:"events,omitempty"`
	LastSeq    int             `json:"last_seq"`
	NextItem   int             `json:"next_item"`
	Usage      harness.Usage   `json:"usage"`
	Final      string          `json:"final,omitempty"`
	Runs       int             `json:"runs"`
}

// maxKeptEvents bounds the event log carried across continue-as-new.
const maxKeptEvents = 500

// maxKeptTurns bounds the turn results a thread keeps in its state.
const maxKeptTurns = 200
