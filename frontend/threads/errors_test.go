package threads

import (
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A workflow's refusal is recognised by its application error type and
// reads as the workflow's message alone; other errors pass unchanged.
func TestTypedRefusals(t *testing.T) {
	msg := "thread th is running turn th/turn-1; wait for it to finish or interrupt it"
	err := typed(workflows.Refusal(workflows.ErrTurnRunning, "%s", msg))
	if !errors.Is(err, ErrTurnRunning) || errors.Is(err, ErrTurnWaiting) {
		t.Fatalf("%v: not a running turn's refusal alone", err)
	}
	if err.Error() != msg || errors.Unwrap(err) != nil {
		t.Fatalf("text %q (unwraps to %v), want the message alone", err, errors.Unwrap(err))
	}
	if wrapped := fmt.Errorf("archiving: %w", err); !errors.Is(wrapped, ErrTurnRunning) || typed(wrapped) != wrapped {
		t.Fatal("a wrapped refusal lost its kind, or was typed twice")
	}
	other := temporal.NewApplicationError("prompt is empty", "")
	if typed(other) != other {
		t.Fatal("an untyped application error changed")
	}
	if r := Refusal(ErrNotArchived, "thread th is not archived"); !errors.Is(r, ErrNotArchived) || r.Error() != "thread th is not archived" {
		t.Fatalf("Refusal: %v", r)
	}
}
