package activities

import (
	"context"
	"testing"
	"time"
)

// Output after a silence wakes the turn's followers once, and each wake
// doubles the silence the next needs, up to wakeMax; output that follows
// output wakes no one.
func TestWakerWakesAfterSilencesThatGrow(t *testing.T) {
	start := time.Unix(1000, 0)
	sent := 0
	w := &waker{last: start, after: wakeFirst, send: func(context.Context) error { sent++; return nil }}
	at := start
	step := func(d time.Duration) {
		at = at.Add(d)
		w.grew(context.Background(), at)
	}
	step(time.Second) // output soon after the start
	if sent != 0 {
		t.Fatalf("%d wakes for output a second in", sent)
	}
	step(wakeFirst) // then a silence
	if sent != 1 || w.after != 2*wakeFirst || w.afterMs() != (2*wakeFirst).Milliseconds() {
		t.Fatalf("after a silence of %v: %d wakes, next after %v", wakeFirst, sent, w.after)
	}
	step(wakeFirst + time.Second) // shorter than the next wake needs
	if sent != 1 {
		t.Fatalf("%d wakes, want 1", sent)
	}
	for range 20 {
		step(time.Hour)
	}
	if sent != 21 || w.after != wakeMax {
		t.Fatalf("%d wakes, next after %v; want 21 and %v", sent, w.after, wakeMax)
	}
	none := &waker{last: start}
	none.grew(context.Background(), start.Add(time.Hour))
	if none.afterMs() != 0 {
		t.Fatal("a command that wakes no one says it does")
	}
}
