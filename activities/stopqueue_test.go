package activities

import "testing"

func TestStopQueueOf(t *testing.T) {
	for _, tc := range []struct{ identity, want string }{
		{"worker@box/42 (interpreter-host-box) stop=interpreter-host-box-sessions-box-42-abc", "interpreter-host-box-sessions-box-42-abc"},
		{"worker@box/42 (interpreter-host-box)", ""},
		{"worker@box/42 (q) stop=q-sessions-box-42-x more", "q-sessions-box-42-x"},
	} {
		if got := StopQueueOf(tc.identity); got != tc.want {
			t.Errorf("StopQueueOf(%q) = %q, want %q", tc.identity, got, tc.want)
		}
	}
}
