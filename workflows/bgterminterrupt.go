package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

// sessionInterrupted is what an exec_command or write_stdin call whose
// worker died, or whose turn was stopped, had shown before it ended: how
// long it ran and its output. As [interruptedReport] for one-shot
// commands, both come from history: the call's own result when it was
// cancelled (ExecCommand returns it as the cancellation's details), or
// the last heartbeat the server kept when its worker died.
func sessionInterrupted(err error) (durationMs int64, output string) {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) && canceled.HasDetails() {
		var out activities.SessionOutput
		if canceled.Details(&out) == nil {
			return out.WallMs, out.Output
		}
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) && timeout.HasLastHeartbeatDetails() {
		var p activities.ExecProgress
		if timeout.LastHeartbeatDetails(&p) == nil {
			shown := string(p.Tail)
			if p.Offset > 0 {
				shown = fmt.Sprintf("[... %d bytes before]\n%s", p.Offset, shown)
			}
			return p.ElapsedMs, shown
		}
	}
	return 0, ""
}

// shownBefore is the model's note of the output a call had printed before
// it was interrupted (nothing when it printed none).
func shownBefore(output string) string {
	if output == "" {
		return ""
	}
	return "\nOutput before it stopped:\n" + output
}

// lastShown is a session's last output as the model should read it after
// a call that its worker's death cut short: what that call had printed
// (its last heartbeat) when it printed anything, else the tail the thread
// kept from the calls before.
func lastShown(kept, shown string) string {
	if shown != "" {
		return shown
	}
	return kept
}
