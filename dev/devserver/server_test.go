package devserver

import "testing"

// A server takes several ports, probed free one after the other before it
// binds any: the same port must never be handed out twice (500 draws from
// 12,000 ports would collide almost surely otherwise).
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 500; i++ {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice (after %d ports)", p, i)
		}
		seen[p] = true
	}
}
