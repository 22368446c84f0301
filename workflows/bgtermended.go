package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// QueryEndedTerminals lists the background terminals that ended last
// ([EndedTerminal], oldest first): a front end that held a command item
// open until its session ended completes it with how it ended, as
// Codex's server does.
const QueryEndedTerminals = "thread.background_terminals.ended"

// maxEndedTerminals bounds [ThreadState.BgExits]: a front end asks soon
// after a session leaves the list, so the last few are enough.
const maxEndedTerminals = 32

// How a background terminal ended ([EndedTerminal.Status]).
const (
	TerminalExited        = "exited"
	TerminalEndedIdle     = "ended_idle"
	TerminalWorkerStopped = "worker_stopped"
)

// EndedTerminal is a background terminal that ended by itself, by its
// idle bound or with its worker (terminate and clean are reported by the
// request that ended them).
type EndedTerminal struct {
	ItemID    string `json:"item_id"`
	ProcessID string `json:"process_id"`
	Status    string `json:"status"`
	// ExitCode is set when the process exited by itself.
	ExitCode *int `json:"exit_code,omitempty"`
	// Output is its last output (bounded, as the model is told).
	Output     string `json:"output,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
}

func (t *thread) endedRegister(ctx workflow.Context) error {
	return workflow.SetQueryHandler(ctx, QueryEndedTerminals, func() ([]EndedTerminal, error) {
		return append([]EndedTerminal{}, t.st.BgExits...), nil
	})
}

// bgRecordEnd keeps how session s ended for the front ends.
func (t *thread) bgRecordEnd(ctx workflow.Context, s ExecSession, status string, code *int, output string) {
	e := EndedTerminal{ItemID: s.ItemID, ProcessID: itoa(s.ID), Status: status, ExitCode: code, Output: output}
	if s.StartedMs > 0 {
		e.DurationMs = max(workflow.Now(ctx).UnixMilli()-s.StartedMs, 0)
	}
	t.st.BgExits = append(t.st.BgExits, e)
	if n := len(t.st.BgExits); n > maxEndedTerminals {
		t.st.BgExits = append([]EndedTerminal{}, t.st.BgExits[n-maxEndedTerminals:]...)
	}
}
