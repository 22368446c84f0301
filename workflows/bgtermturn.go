package workflows

import "go.temporal.io/sdk/workflow"

// SignalSessionEnded: a background terminal the running turn holds
// ended, or was terminated ([SessionEnded]); sent by its thread.
const SignalSessionEnded = "bgterm.session_ended"

// SessionEnded is the payload of [SignalSessionEnded]: the session the
// turn drops, and the notice its next model request sends.
type SessionEnded struct {
	ID   int    `json:"id"`
	Text string `json:"text,omitempty"`
}

// registerSessionEnds takes the thread's notices of ended sessions.
func (t *turn) registerSessionEnds(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalSessionEnded)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var e SessionEnded
			ch.Receive(ctx, &e)
			t.dropSession(e.ID)
			if e.Text != "" {
				t.st.Notices = append(t.st.Notices, e.Text)
			}
		}
	})
}
