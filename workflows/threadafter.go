package workflows

import "go.temporal.io/sdk/workflow"

// A turn sent to a thread whose running turn has ended (a front end's
// follower saw its end in the log) but whose thread has not taken in
// that end yet (the turn closes a workflow task later, and its thread a
// task after that) names the ended turn ([StartTurnRequest.After]); the
// thread queues it behind that turn instead of refusing it, and starts it
// as soon as the end arrives. The client then need not ask again after
// the close (which cost it a few round trips and the wait for both
// tasks). From acceptance on, the thread shows the queued turn as its
// running one, and an interrupt is for it: it is stopped as soon as its
// workflow has started (the ended turn is left to close).

// afterEndedChange versions the interrupt of a turn queued behind an
// ended one.
const afterEndedChange = "thread.after-ended"

// endedBy tells whether req names the running turn as ended.
func (t *thread) endedBy(req StartTurnRequest) bool {
	return req.After != "" && t.st.Running != "" && req.After == t.st.Running
}

// noteAfter remembers, as the thread accepts req, that the client knows
// the running turn has ended.
func (t *thread) noteAfter(req StartTurnRequest) {
	if t.endedBy(req) {
		t.afterEnded = true
	}
}

// runningTurn is the turn the thread shows as running: the queued one
// once a client said the running one ended.
func (t *thread) runningTurn() string {
	if t.afterEnded && len(t.st.Queue) > 0 {
		return t.st.Queue[0].TurnID
	}
	return t.st.Running
}

// interruptRunning stops the running turn, or marks the queued one for a
// stop once the running one is known to have ended.
func (t *thread) interruptRunning(ctx workflow.Context) {
	if t.quickBusy || t.quickWaiting {
		t.stopNext = true // a quick turn's first step runs (quickturn.go)
		return
	}
	if t.afterEnded && len(t.st.Queue) > 0 && workflow.GetVersion(ctx, afterEndedChange, workflow.DefaultVersion, 1) == 1 {
		t.stopNext = true
		return
	}
	if t.interrupt != nil {
		t.interrupt()
	}
}

// startedTurn is called as a turn's child workflow is started: an
// interrupt that came while the turn waited behind an ended one cancels
// it once it runs (a cancel before the start would leave the turn's
// followers without a workflow to read).
func (t *thread) startedTurn(ctx workflow.Context, child workflow.ChildWorkflowFuture, cancel workflow.CancelFunc) {
	t.afterEnded = false
	if !t.stopNext {
		return
	}
	t.stopNext = false
	workflow.Go(ctx, func(ctx workflow.Context) {
		_ = child.GetChildWorkflowExecution().Get(ctx, nil)
		cancel()
	})
}
