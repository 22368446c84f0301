package threads

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The memory of ended turns: a seen end is pending until the thread is
// seen to take it in; a later end of the same thread replaces it; a
// thread's view takes it in once the turn is among its turns (or nothing
// runs any more), not while the turn, or one queued behind it, shows as
// running.
func TestEndedTurnMemory(t *testing.T) {
	th := "ended-memory-thread"
	t1, t2 := workflows.TurnWorkflowID(th, 1), workflows.TurnWorkflowID(th, 2)
	if pendingEnd(th) != "" || endedTurn(th) != "" {
		t.Fatal("an end remembered before any was seen")
	}
	noteEnded(t1)
	if pendingEnd(th) != t1 || endedTurn(th) != t1 {
		t.Fatalf("pending %q, ended %q; want %s", pendingEnd(th), endedTurn(th), t1)
	}
	markTakenIn(th, t2) // not the end seen: no effect
	if pendingEnd(th) != t1 {
		t.Fatal("another turn's taking in settled the seen end")
	}
	markTakenIn(th, t1)
	if pendingEnd(th) != "" || endedTurn(th) != t1 {
		t.Fatalf("after taking in: pending %q, ended %q", pendingEnd(th), endedTurn(th))
	}
	noteEnded(t1) // the same end seen again stays taken in
	if pendingEnd(th) != "" {
		t.Fatal("seeing the same end again made it pending")
	}
	noteEnded(t2)
	if pendingEnd(th) != t2 {
		t.Fatalf("pending %q; want %s", pendingEnd(th), t2)
	}

	running := workflows.ThreadView{RunningTurn: t2, Turns: []workflows.TurnResult{{TurnID: t1}}}
	if tookIn(running, t2) {
		t.Fatal("a turn still running was taken for taken in")
	}
	queued := workflows.ThreadView{RunningTurn: workflows.TurnWorkflowID(th, 3), Turns: []workflows.TurnResult{{TurnID: t1}}}
	if tookIn(queued, t2) {
		t.Fatal("a reply queued behind the turn was taken for its end taken in")
	}
	after := workflows.ThreadView{RunningTurn: workflows.TurnWorkflowID(th, 3), Turns: []workflows.TurnResult{{TurnID: t1}, {TurnID: t2}}}
	if !tookIn(after, t2) || !tookIn(workflows.ThreadView{}, t2) {
		t.Fatal("a view with the turn among its turns, or idle, was not taken for taken in")
	}
}
