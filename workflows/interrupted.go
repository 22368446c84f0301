package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

// workerStopped ends the output of a command whose worker died under it.
const workerStopped = "[interrupted: the worker running this command stopped; the outcome is unknown and it was not run again]"

// interruptedReport is what an interrupted command's item shows: how long
// it ran and the output it had shown, then note. Both come from history,
// so a replay reads the same: a cancelled command's own result (Exec
// returns it as the cancellation's details), or, for a command whose
// worker died, the last heartbeat the server kept (the timeout carries
// it). That heartbeat is as old as the command's silence allows: a
// command that prints heartbeats within a fraction of a second, a quiet
// one a second after it starts and then every quarter of its heartbeat
// timeout (2.5 min by default), so the time is the command's run to within
// that, never more than it ran.
func interruptedReport(err error, note string) (durationMs int64, output string) {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) && canceled.HasDetails() {
		var out activities.ExecOutput
		if canceled.Details(&out) == nil {
			return out.DurationMs, joinNote(out.Output, note)
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
			return p.ElapsedMs, joinNote(shown, note)
		}
	}
	return 0, note
}

func joinNote(output, note string) string {
	if output == "" {
		return note
	}
	if output[len(output)-1] != '\n' {
		output += "\n"
	}
	return output + note
}
