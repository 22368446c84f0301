package activities

import (
	"strings"
	"testing"
	"time"
)

type handoffThing struct{ name string }

// A handed-off item is taken once, by its key; one nobody takes is
// dropped after its unclaimed time, and its key then finds nothing.
func TestHandoffsTakeOnceOrDrop(t *testing.T) {
	dropped := make(chan *handoffThing, 1)
	h := newHandoffs(50*time.Millisecond, func(x *handoffThing) string { return x.name },
		func(x *handoffThing) { dropped <- x })

	kept := &handoffThing{name: "call-1"}
	key := h.put(kept)
	if !strings.Contains(key, "/call-1/") {
		t.Errorf("key %q does not name its item", key)
	}
	if got := h.take(key); got != kept {
		t.Fatalf("take = %v, want the item put", got)
	}
	if got := h.take(key); got != nil {
		t.Fatalf("a second take = %v, want nothing", got)
	}

	lost := &handoffThing{name: "call-2"}
	lostKey := h.put(lost)
	if lostKey == key {
		t.Fatal("two items have one key")
	}
	select {
	case got := <-dropped:
		if got != lost {
			t.Fatalf("dropped %v, want the unclaimed item", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the unclaimed item was not dropped")
	}
	if got := h.take(lostKey); got != nil {
		t.Fatalf("a dropped item was taken: %v", got)
	}
}
