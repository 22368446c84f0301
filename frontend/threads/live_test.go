package threads

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A reader takes what is past its position; one that fell behind the
// heartbeat's tail is told how many bytes it missed; a rerun without the
// sandbox counts as the same call.
func TestLiveOutputNewBytes(t *testing.T) {
	p := workflows.ExecProgress{CallID: "call_1-unsandboxed", Total: 10, Offset: 4, Tail: []byte("456789")}
	cases := []struct {
		seen    int64
		ok      bool
		data    string
		offset  int64
		skipped int64
	}{
		{seen: 10, ok: false},
		{seen: 12, ok: false},
		{seen: 7, ok: true, data: "789", offset: 7},
		{seen: 4, ok: true, data: "456789", offset: 4},
		{seen: 1, ok: true, data: "456789", offset: 4, skipped: 3},
	}
	for _, c := range cases {
		ch, ok := newOutput(p, c.seen)
		if ok != c.ok || string(ch.Data) != c.data || ch.Offset != c.offset || ch.Skipped != c.skipped {
			t.Errorf("seen %d: got %v %+v", c.seen, ok, ch)
		}
		if ok && ch.CallID != "call_1" {
			t.Errorf("seen %d: call id %q, want call_1", c.seen, ch.CallID)
		}
	}
}
