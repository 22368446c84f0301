package threads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc/status"

	"github.com/interpreter-dev/interpreter/workflows"
)

// How a front end follows a turn, and why (docs/architecture.md, "Following a turn"):
// the turn's event log grows only when one of its workflow tasks
// completes. A follower long-polls the run's history on the server
// (GetWorkflowExecutionHistory with WaitNewEvent), which wakes it when
// events are written and adds none, and after each completed workflow
// task reads the new events with a query, which the worker answers from
// its cache and which adds nothing to history either. A turn that ends
// in the task after its last model call's sends its result with the
// command that ends that task (workflows' closeApart): the follower
// answers with that event, with no query (a query would wait for the
// closing task in flight). Otherwise, once the log shows the turn's end,
// the query's page brings the turn's result; failing both, the close
// event brings the result with its last events. So any number of
// followers leave the turn's history as it would be unwatched, and no
// item payload is copied into it. (Before, each reader sent turn.wait
// updates, two events and often a timer each, whose results copied the
// new items into history again; the workflows still answer them for
// older front ends.)

// FollowTurn calls fn for every event of a turn after sequence number
// after, in order, until the turn ends or ctx is done. It survives worker
// restarts and the turn's continue-as-new; events dropped before a reader
// caught up are skipped (the page's First tells).
func FollowTurn(ctx context.Context, c client.Client, turnID string, after int, fn func(workflows.Event)) error {
	_, err := Follow(ctx, c, turnID, after, fn)
	return err
}

// Follow is [FollowTurn] that also returns the turn's result when its
// run's close event had it (usually); nil means ask [Outcome].
func Follow(ctx context.Context, c client.Client, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	for restarts := 0; ; {
		res, next, err := followRun(ctx, c, turnID, &after, fn)
		if err == nil && !next {
			noteEnded(turnID)
		}
		if err != nil && branchChanged(err) && restarts < maxBranchRestarts {
			// The server refused the long poll's position (it reloaded
			// the run's state while a write raced the poll): read the
			// run again; after skips what was already told.
			restarts++
			continue
		}
		if err != nil || !next {
			return res, err
		}
	}
}

// maxBranchRestarts bounds how often one follow reads a run again after
// the server refused its history position.
const maxBranchRestarts = 20

// branchChanged: the server refused a history read because the run's
// branch or versioned transition no longer matches the read's token
// (its CurrentBranchChangedFailure detail). On one cluster this is a
// transient state of the server, not of the turn: reading again from the
// start of the run succeeds.
func branchChanged(err error) bool {
	var st interface{ Status() *status.Status }
	if !errors.As(err, &st) || st.Status() == nil {
		return false
	}
	for _, d := range st.Status().Proto().GetDetails() {
		if strings.HasSuffix(d.GetTypeUrl(), ".CurrentBranchChangedFailure") {
			return true
		}
	}
	return false
}

// followRun follows the turn's current run to its close; next: it
// continued as new (or ended without a result in its close event while
// more events may come), so follow the next one.
func followRun(ctx context.Context, c client.Client, turnID string, after *int, fn func(workflows.Event)) (*workflows.TurnResult, bool, error) {
	emit := func(evs []workflows.Event) {
		for _, e := range evs {
			if e.Seq > *after {
				fn(e)
				*after = e.Seq
			}
		}
	}
	// read catches up from the log; the result once the log shows the
	// turn's end (its run closes a workflow task later).
	read := func() (*workflows.TurnResult, error) {
		page, _, err := readOpenEvents(ctx, c, turnID, *after, true)
		if err != nil {
			return nil, err
		}
		emit(page.Events)
		if page.Result != nil && page.Last == *after {
			res := *page.Result
			return &res, nil
		}
		return nil, nil
	}
	moved := historyMoved(ctx)
	// What arrived since the log was last read: a workflow task that
	// followed only wakes changed nothing in the log, so it is not read.
	since := sinceOther
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	// The current run, read from its first event: no describe first (one
	// round trip less before the first event), and the events already
	// written cost one query at most, at the last task completion that
	// arrived with them.
	h, err := openHistory(hctx, c, turnID)
	if err != nil {
		return nil, false, err
	}
	for {
		x, ok := h.next()
		if !ok {
			break
		}
		ev, err := x.ev, x.err
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			return nil, false, fmt.Errorf("following turn %s: %w", turnID, err)
		}
		switch {
		case isWake(ev):
			moved()
			if since == sinceNothing {
				since = sinceWakes
			}
		case ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
			ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
		case ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			moved()
			// A later completion or the run's close already on its way
			// (the same page) answers for this one: no query for it.
			if h.laterAhead() {
				continue
			}
			wakesOnly := since == sinceWakes
			since = sinceNothing
			if wakesOnly {
				continue
			}
			res, err := read()
			if err != nil || res != nil {
				return res, false, err
			}
		case recorded(ev):
			// The turn's result, sent with the command that ends its last
			// model call's task: the answer, a task before the close
			// (whose query would wait for that task).
			if res := recordedResult(ev); res != nil && tailFollows(res.Tail, *after) {
				emit(res.Tail)
				res.Tail = nil
				return res, false, nil
			}
			res, err := read()
			if err != nil || res != nil {
				return res, false, err
			}
		case ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			return nil, true, nil
		case closing(ev):
			if res := closeEventResult(ev); res != nil && tailFollows(res.Tail, *after) {
				emit(res.Tail)
				res.Tail = nil
				return res, false, nil
			}
			// No result with the events this reader lacks (a turn
			// terminated from outside, or one that fell far behind):
			// the closed run's log still answers, replayed.
			page, err := readEvents(ctx, c, turnID, *after)
			if err == nil {
				emit(page.Events)
			}
			return nil, false, err
		default:
			since = sinceOther
		}
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	return nil, true, nil
}

// openHistory starts reading the turn's current run's history, long
// polling. The thread starts the turn's workflow right after accepting
// the turn, so a turn not there yet is waited for (briefly).
func openHistory(ctx context.Context, c client.Client, turnID string) (*historyStream, error) {
	for attempt := 0; ; attempt++ {
		h := streamHistory(ctx, c.GetWorkflowHistory(ctx, turnID, "", true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT))
		x, ok := h.next()
		if !ok {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("following turn %s: no history", turnID)
		}
		var nf *serviceerror.NotFound
		if x.err == nil || !errors.As(x.err, &nf) || attempt >= 2500 {
			h.ahead = append([]historyItem{x}, h.ahead...)
			return h, nil
		}
		if err := sleepCtx(ctx, 2*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// historyItem is one event of a followed run's history, or the error
// that ended reading it.
type historyItem struct {
	ev  *historypb.HistoryEvent
	err error
}

// historyStream reads a run's history (long-polling) in a goroutine of
// its own, so the follower can see which events have already arrived
// with the page it is reading.
type historyStream struct {
	ch    chan historyItem
	ahead []historyItem
}

func streamHistory(ctx context.Context, it client.HistoryEventIterator) *historyStream {
	h := &historyStream{ch: make(chan historyItem, 256)}
	go func() {
		defer close(h.ch)
		for it.HasNext() {
			ev, err := it.Next()
			select {
			case h.ch <- historyItem{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return h
}

// next is the next event, waiting for it; false once the history ended.
func (h *historyStream) next() (historyItem, bool) {
	if len(h.ahead) > 0 {
		x := h.ahead[0]
		h.ahead = h.ahead[1:]
		return x, true
	}
	x, ok := <-h.ch
	return x, ok
}

// laterAhead tells whether the events that have already arrived
// (without waiting for more) include a later workflow task completion or
// the run's close.
func (h *historyStream) laterAhead() bool {
	later := func(x historyItem) bool {
		return x.err == nil && (closing(x.ev) || recorded(x.ev) || x.ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
	}
	for _, x := range h.ahead {
		if later(x) {
			return true
		}
	}
	for {
		select {
		case x, ok := <-h.ch:
			if !ok {
				return false
			}
			h.ahead = append(h.ahead, x)
			if later(x) {
				return true
			}
		default:
			return false
		}
	}
}

// closing tells whether ev closes its run for good.
func closing(ev *historypb.HistoryEvent) bool {
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
		return true
	}
	return false
}

// recorded tells whether ev is the signal a turn sends itself to end a
// workflow task that made a model call (workflows' closeApart).
func recorded(ev *historypb.HistoryEvent) bool {
	return ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetSignalName() == workflows.SignalRecorded
}

// recordedResult reads the turn's result from that signal's input: a
// turn that is ending sends it (with its log's tail); nil otherwise.
func recordedResult(ev *historypb.HistoryEvent) *workflows.TurnResult {
	p := ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetInput()
	if len(p.GetPayloads()) == 0 {
		return nil
	}
	var res *workflows.TurnResult
	if err := converter.GetDefaultDataConverter().FromPayload(p.GetPayloads()[0], &res); err != nil || res == nil || res.TurnID == "" {
		return nil
	}
	return res
}

// tailFollows tells whether events continue a reader that has seen up to
// after and end the turn.
func tailFollows(events []workflows.Event, after int) bool {
	if len(events) == 0 || events[0].Seq > after+1 {
		return false
	}
	switch events[len(events)-1].Type {
	case workflows.EventTurnCompleted, workflows.EventTurnFailed:
		return true
	}
	return false
}

// closeEventResult reads a turn's result from its run's close event.
func closeEventResult(ev *historypb.HistoryEvent) *workflows.TurnResult {
	var p *commonpb.Payloads
	switch {
	case ev.GetWorkflowExecutionCompletedEventAttributes() != nil:
		p = ev.GetWorkflowExecutionCompletedEventAttributes().GetResult()
	case ev.GetWorkflowExecutionFailedEventAttributes() != nil:
		err := temporal.GetDefaultFailureConverter().FailureToError(ev.GetWorkflowExecutionFailedEventAttributes().GetFailure())
		if res, ok := workflows.TurnResultOf(err); ok {
			return &res
		}
		return nil
	case ev.GetWorkflowExecutionCanceledEventAttributes() != nil:
		p = ev.GetWorkflowExecutionCanceledEventAttributes().GetDetails()
	}
	if len(p.GetPayloads()) == 0 {
		return nil
	}
	var res workflows.TurnResult
	if err := converter.GetDefaultDataConverter().FromPayload(p.GetPayloads()[0], &res); err != nil || res.TurnID == "" {
		return nil
	}
	return &res
}

// readEvents queries a page of the turn's log after seq after.
func readEvents(ctx context.Context, c client.Client, turnID string, after int) (workflows.EventsPage, error) {
	p, _, err := readOpenEvents(ctx, c, turnID, after, false)
	return p, err
}

// readOpenEvents is [readEvents]; openOnly: unless the run is still open
// (closed tells), which spares a worker replaying a closed run whose
// close event has the last events anyway.
func readOpenEvents(ctx context.Context, c client.Client, turnID string, after int, openOnly bool) (p workflows.EventsPage, closed bool, err error) {
	reject := enumspb.QUERY_REJECT_CONDITION_NONE
	if openOnly {
		reject = enumspb.QUERY_REJECT_CONDITION_NOT_OPEN
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.QueryWorkflowWithOptions(ctx, &client.QueryWorkflowWithOptionsRequest{
			WorkflowID: turnID, QueryType: workflows.QueryEvents,
			Args: []any{workflows.EventsRequest{After: after, Limit: 500}}, QueryRejectCondition: reject,
		})
		if err == nil {
			if resp.QueryRejected != nil {
				return p, true, nil
			}
			return p, false, resp.QueryResult.Get(&p)
		}
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) && attempt < 500 {
			// The child may not have started yet.
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return p, false, err
			}
			continue
		}
		if queryTimedOut(ctx, err) && attempt < 100 {
			// A query waits for the workflow task in flight: a long model
			// call made as a local activity holds it, and the query's own
			// deadline may pass first. Ask again.
			continue
		}
		return p, false, fmt.Errorf("reading events of %s: %w", turnID, err)
	}
}

// queryTimedOut tells whether a query failed on its own deadline while the
// caller's context is still live.
func queryTimedOut(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &de) || errors.Is(err, context.DeadlineExceeded)
}
