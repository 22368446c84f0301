package workflows

import "testing"

// The derived names are those the worker registers the activities under.
func TestActivityNames(t *testing.T) {
	for got, want := range map[string]string{
		ActivityExec: "Exec", ActivityExecCommand: "ExecCommand", ActivityWriteStdin: "WriteStdin", ActivityCallModel: "CallModel",
	} {
		if got != want {
			t.Errorf("activity name %q, want %q", got, want)
		}
	}
}
