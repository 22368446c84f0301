package threads

import "testing"

func TestLivePace(t *testing.T) {
	var p LivePace
	if p.Due(true) {
		t.Fatal("polled while the turn waits for a client")
	}
	polls := 0
	for tick := 0; tick < LiveQuietPolls+100; tick++ {
		if p.Due(false) {
			polls++
			p.Polled(false)
		}
	}
	// Every tick until quiet, then one in ten.
	if want := LiveQuietPolls + 10; polls != want {
		t.Fatalf("%d polls, want %d", polls, want)
	}
	p.Moved()
	if !p.Due(false) || p.Quiet() != 0 {
		t.Fatal("a moved turn is not polled at once")
	}
	p.Polled(true)
	if p.Quiet() != 0 {
		t.Fatal("news did not reset the pace")
	}
}
