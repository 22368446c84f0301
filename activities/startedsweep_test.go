package activities

import (
	"context"
	"testing"
)

// The sweep removes the records of ended turns only, and finds nothing
// to do before any command was recorded.
func TestSweepRemovesTheRecordsOfEndedTurns(t *testing.T) {
	a := &Activities{Home: t.TempDir()}
	ended := map[string]bool{"th/turn-1": true, "th/turn-2": false}
	tell := func(_ context.Context, turn string) bool { return ended[turn] }
	if n, err := a.SweepStartedRecords(context.Background(), tell); n != 0 || err != nil {
		t.Fatalf("sweeping no records: %d, %v", n, err)
	}
	s := a.started()
	for _, r := range []struct{ turn, key string }{{"th/turn-1", "call_a"}, {"th/turn-1", "call_b"}, {"th/turn-2", "call_c"}} {
		if fresh, err := s.record(r.turn, r.key); !fresh || err != nil {
			t.Fatalf("recording %v: %v %v", r, fresh, err)
		}
	}
	n, err := a.SweepStartedRecords(context.Background(), tell)
	if n != 1 || err != nil {
		t.Fatalf("swept %d turns (%v), want 1", n, err)
	}
	if s.has("th/turn-1", "call_a") || s.has("th/turn-1", "call_b") {
		t.Error("an ended turn's records were kept")
	}
	if !s.has("th/turn-2", "call_c") {
		t.Error("a running turn's record was removed")
	}
}
