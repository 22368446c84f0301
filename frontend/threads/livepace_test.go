package threads

import (
	"testing"
	"time"
)

func TestLivePace(t *testing.T) {
	var p LivePace
	if p.Due(true) {
		t.Fatal("polled while the turn waits for a client")
	}
	var at []int
	for tick := 0; tick < 2000; tick++ {
		if p.Due(false) {
			at = append(at, tick)
			p.Polled(false)
		}
	}
	// Every tick until quiet, then gaps of 10, 20, 40, 80 and LiveMaxGap.
	want := []int{LiveQuietPolls, 10, 20, 40, 80, LiveMaxGap, LiveMaxGap}
	for i := 0; i < LiveQuietPolls; i++ {
		if at[i] != i {
			t.Fatalf("poll %d at tick %d", i, at[i])
		}
	}
	for i, gap := range want[1:] {
		k := LiveQuietPolls + i
		if d := at[k] - at[k-1]; d != gap {
			t.Fatalf("gap %d before poll %d, want %d (polls at %v)", d, k, gap, at)
		}
	}
	if n := len(at); n > LiveQuietPolls+5+(2000-LiveQuietPolls)/LiveMaxGap {
		t.Fatalf("%d polls in 2000 ticks", n)
	}
	p.Moved()
	if p.Quiet() != 0 || !p.Due(false) {
		t.Fatal("a moved turn is not polled at once")
	}
	for range 40 {
		p.Polled(false)
	}
	p.Polled(true)
	if p.Quiet() != 0 || !p.Due(false) {
		t.Fatal("news did not reset the pace")
	}
}

// A turn that wakes its follower is left alone once it has been quiet for
// the whole silence its wake needs, measured by a poll made after it; it
// is polled again when its history moves, or after LiveParkedGap.
func TestLivePaceParksAQuietTurnThatWakes(t *testing.T) {
	const park = 120
	var p LivePace
	var at []int
	for tick := 1; tick <= 20000; tick++ {
		if p.Due(false) {
			at = append(at, tick)
			p.ParkAfter(park)
			p.Polled(false)
		}
	}
	// The last poll before parking comes after the silence, not before.
	parkedAt := -1
	for i := 1; i < len(at); i++ {
		if at[i]-at[i-1] > LiveMaxGap {
			parkedAt = at[i-1]
			break
		}
	}
	if parkedAt < park {
		t.Fatalf("parked at tick %d, before the %d quiet ticks its wake needs (polls at %v)", parkedAt, park, at)
	}
	if !p.Parked() {
		t.Fatal("not parked")
	}
	if n := len(at); n > LiveQuietPolls+8+20000/LiveParkedGap {
		t.Fatalf("%d polls in 20000 ticks (at %v)", n, at)
	}
	p.Moved()
	if p.Parked() || !p.Due(false) {
		t.Fatal("a turn whose history moved is not polled at once")
	}
	// A poll that says the turn might print without a wake never parks.
	p = LivePace{}
	for tick := 0; tick < 2000; tick++ {
		if p.Due(false) {
			p.ParkAfter(0)
			p.Polled(false)
		}
	}
	if p.Parked() {
		t.Fatal("parked a turn that does not wake its followers")
	}
}

func TestParkTicks(t *testing.T) {
	for _, c := range []struct {
		after, tick time.Duration
		want        int
	}{
		{5 * time.Second, 100 * time.Millisecond, 100},
		{0, 100 * time.Millisecond, LiveQuietPolls},
		{time.Second, 100 * time.Millisecond, LiveQuietPolls},
		{5 * time.Second, 300 * time.Millisecond, 34},
		{5 * time.Second, 0, 0},
	} {
		if got := ParkTicks(c.after, c.tick); got != c.want {
			t.Errorf("ParkTicks(%v, %v) = %d, want %d", c.after, c.tick, got, c.want)
		}
	}
}

// A follower whose polls take longer than a tick sees fewer ticks than
// passed: the pace counts the time (DueAfter's missed ticks), so it parks
// after the same silence as a fast follower, not after one several times
// as long.
func TestLivePaceCountsMissedTicks(t *testing.T) {
	const park, slow = 100, 3 // each poll takes three ticks
	var p LivePace
	parkedAt := -1
	// n: the ticks since the previous tick the follower saw.
	for tick, n := 1, 1; tick <= 2000; {
		due := p.DueAfter(false, n)
		n = 1
		if due {
			p.ParkAfter(park)
			p.Polled(false)
			n = slow
		}
		tick += n
		if p.Parked() {
			parkedAt = tick - n
			break
		}
	}
	if parkedAt < park || parkedAt > park+LiveMaxGap/2 {
		t.Fatalf("parked at tick %d, want between %d and %d", parkedAt, park, park+LiveMaxGap/2)
	}
}
