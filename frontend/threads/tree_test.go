package threads

import (
	"testing"
	"time"
)

func TestAsTree(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	list := []Summary{
		{ThreadID: "kid3", ParentThreadID: "root", StartTime: at(3)},
		{ThreadID: "kid2", ParentThreadID: "root", StartTime: at(2)},
		{ThreadID: "other"},
		{ThreadID: "grand", ParentThreadID: "kid1"},
		{ThreadID: "kid1", ParentThreadID: "root", StartTime: at(1)},
		{ThreadID: "root"},
		{ThreadID: "orphan", ParentThreadID: "gone"},
	}
	var got []string
	for _, s := range AsTree(list) {
		got = append(got, s.ThreadID+":"+string(rune('0'+s.Depth)))
	}
	// The newest-first list puts kid3 first; under root they come in
	// spawn order.
	want := []string{"other:0", "root:0", "kid1:1", "grand:2", "kid2:1", "kid3:1", "orphan:0"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
