package workflows

import "go.temporal.io/sdk/workflow"

// A turn never closes in the workflow task that made a model call as a
// local activity (see [turn.closeApart]).
//
// A local activity's result is written to history (as a marker) only when
// the workflow task that ran it completes. The server refuses to complete
// a task that closes the workflow while new events wait for it (an
// interrupt's cancel request, a signal, a timer that fired, an activity
// that ended): it fails the task with UNHANDLED_COMMAND, and the next one
// replays without the marker, so the model call is made again (or, when
// the event was an interrupt, its paid-for answer is dropped). With a
// fast model the last call answers inside the task that ends the turn,
// so any event landing in that window cost a repeated call.

// SignalRecorded is the signal a turn sends itself to end the workflow
// task that holds a local call's result (see [turn.closeApart]). When the
// turn is ending, its input is the turn's result with the tail of its
// log: the command's event in history answers a follower as the run's
// close event would, a workflow task earlier.
const SignalRecorded = "turn.recorded"

// signalRecorded is the name the turn's code uses.
const signalRecorded = SignalRecorded

// noteLocalCall remembers that the current workflow task ran a model call
// as a local activity (answered or not): its marker is not in history
// until the task completes.
func (t *turn) noteLocalCall(ctx workflow.Context) {
	t.localTask = workflow.GetInfo(ctx).GetCurrentHistoryLength()
}

// closeApart completes the current workflow task
// without closing the turn when that task ran a model call locally, and
// closes in a later one, which runs no model call. An event arriving while
// that one runs may still fail it (rarely: it takes milliseconds), but its
// retry repeats nothing. The history length tells tasks apart: it is the
// length at the start of the current task, the same on replay.
//
// What ends the task is a signal the turn sends itself: the server refuses
// it at once, without a round trip to another workflow, by recording one
// event (SignalExternalWorkflowExecutionFailed, "not found": a workflow
// may not signal itself), and that event starts the next task. (A timer
// would do as well, but the server fires short timers up to a second
// late.) Should a server deliver the signal instead, the turn takes it
// before closing, so it cannot arrive during the close either.
//
// res, when the turn is ending, is its result (with the log's tail) and
// rides in the signal's input, which history keeps even though the
// signal is refused: a follower that reads it answers at once, without
// a query (which would wait for the closing task in flight). It goes
// without the entries the next turn sends (Unsent: tool outputs, which
// may be large; only the thread reads them, from the close). The SDK's
// check of a replayed command does not compare inputs.
func (t *turn) closeApart(ctx workflow.Context, res *TurnResult) {
	if t.localTask == 0 || workflow.GetInfo(ctx).GetCurrentHistoryLength() != t.localTask {
		return
	}
	// Disconnected: an interrupt arriving now must not skip the wait, or
	// the close would come in this task after all.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	// The turn's id is its workflow id (named from the input, not read
	// from the workflow info, so a replay outside its execution sends
	// the same command).
	var arg any
	if res != nil {
		shown := *res
		shown.Unsent = nil
		arg = shown
	}
	sent := workflow.SignalExternalWorkflow(dctx, t.in.TurnID, "", signalRecorded, arg)
	got := workflow.GetSignalChannel(dctx, signalRecorded)
	if err := sent.Get(dctx, nil); err != nil {
		return // refused: the usual way
	}
	got.Receive(dctx, nil)
}
