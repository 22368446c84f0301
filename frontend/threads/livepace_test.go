package threads

import "testing"

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
