package threads

import "testing"

func TestAsTree(t *testing.T) {
	list := []Summary{
		{ThreadID: "kid2", ParentThreadID: "root"},
		{ThreadID: "other"},
		{ThreadID: "grand", ParentThreadID: "kid1"},
		{ThreadID: "kid1", ParentThreadID: "root"},
		{ThreadID: "root"},
		{ThreadID: "orphan", ParentThreadID: "gone"},
	}
	var got []string
	for _, s := range AsTree(list) {
		got = append(got, s.ThreadID+":"+string(rune('0'+s.Depth)))
	}
	want := []string{"other:0", "root:0", "kid2:1", "kid1:1", "grand:2", "orphan:0"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
