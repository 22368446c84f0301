package exec

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The turn after a goal's turn is found among the thread's turns even
// when it has already ended; the last turn has none after it.
func TestTurnAfter(t *testing.T) {
	turns := []workflows.TurnResult{{TurnID: "th/turn-1"}, {TurnID: "th/turn-2"}, {TurnID: "th/turn-3"}}
	if next, ok := turnAfter(turns, "th/turn-2"); !ok || next != "th/turn-3" {
		t.Fatalf("after turn 2: %q %v", next, ok)
	}
	if next, ok := turnAfter(turns, "th/turn-3"); ok {
		t.Fatalf("after the last turn: %q", next)
	}
	if next, ok := turnAfter(turns, "th/turn-9"); ok {
		t.Fatalf("after an unknown turn: %q", next)
	}
}
