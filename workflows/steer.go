package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

const (
	// UpdateSteer adds a user's input to the running turn ([SteerRequest]);
	// sent to the turn workflow. The model reads it before its next call;
	// the turn logs it as a user_message item. Refused once the turn is
	// finishing, or when it names another turn.
	UpdateSteer = "turn.steer"
	// ItemUserMessage is input a user steered into a running turn (Text).
	ItemUserMessage = "user_message"
)

// SteerRequest is the payload of [UpdateSteer].
type SteerRequest struct {
	ThreadID string `json:"thread_id"`
	// TurnID must name the running turn (the client's expected turn).
	TurnID string `json:"turn_id"`
	Prompt string `json:"prompt"`
}

// SteerResponse answers [UpdateSteer].
type SteerResponse struct {
	TurnID string `json:"turn_id"`
	ItemID string `json:"item_id"`
}

// registerSteer installs the steering update.
func (t *turn) registerSteer(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateSteer,
		func(ctx workflow.Context, r SteerRequest) (SteerResponse, error) {
			it := t.newItem(ItemUserMessage)
			it.Text, it.Status = r.Prompt, StatusCompleted
			t.log.add(Event{Type: EventItemCompleted, Item: it})
			t.st.Steers = append(t.st.Steers, r.Prompt)
			return SteerResponse{TurnID: t.in.TurnID, ItemID: it.ID}, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r SteerRequest) error {
			switch {
			case r.ThreadID != t.in.ThreadID:
				return Refusal(ErrSteerRefused, "steer refused: it names thread %q, but this turn belongs to thread %s", r.ThreadID, t.in.ThreadID)
			case r.TurnID != t.in.TurnID:
				return Refusal(ErrWrongTurn, "expected active turn id `%s` but found `%s`", r.TurnID, t.in.TurnID)
			case t.in.Taken:
				// A quick turn's thread took its result in before this
				// workflow began: it only records the turn, which has ended
				// for every client, and a steer it took would be lost.
				return Refusal(ErrNoActiveTurn, "no active turn to steer: turn %s has ended", t.in.TurnID)
			case strings.TrimSpace(r.Prompt) == "":
				return Refusal(ErrSteerRefused, "steer refused: the input is empty")
			case CheckInput("Input", r.Prompt) != nil:
				return CheckInput("Input", r.Prompt)
			case jsonSize(t.st.Steers)+jsonSize(r.Prompt) > MaxInputBytes:
				return Refusal(ErrSteerRefused, "steer refused: input steered before the next model call would exceed %d bytes; wait for the model to read it", MaxInputBytes)
			case t.status != "" || t.log.done || t.log.closing:
				return Refusal(ErrNoActiveTurn, "no active turn to steer: turn %s is finishing", t.in.TurnID)
			}
			return nil
		}})
}

// takeSteers moves steered input, then sub-agents' notices, into what the
// next model call sends, after the tool outputs the model has not read
// yet.
func (t *turn) takeSteers() {
	for _, s := range t.st.Steers {
		t.st.Pending = append(t.st.Pending, harness.Entry{Kind: harness.KindUser, Text: s})
	}
	t.st.Steers = nil
	for _, n := range t.st.Notices {
		t.st.Pending = append(t.st.Pending, harness.Entry{Kind: harness.KindUser, Text: n})
	}
	t.st.Notices = nil
}

// watchStall fails the turn when its event log has not grown for the
// stall timeout. Waits for a client's answer (approvals, dynamic tools)
// stop the clock: they have their own timeouts. The timer is a workflow
// timer, so it holds across worker restarts; a continue-as-new starts
// the clock again.
func (t *turn) watchStall(ctx workflow.Context) (workflow.Context, func()) {
	d := t.in.Config.StallTimeout
	if d <= 0 {
		// No new context: turns without a stall timeout issue the same
		// commands (cancellations included) as before it existed.
		return ctx, func() {}
	}
	ctx, cancel := workflow.WithCancel(ctx)
	t.log.now = func() time.Time { return workflow.Now(ctx) }
	t.log.lastAt = workflow.Now(ctx)
	wctx, stop := workflow.WithCancel(ctx)
	workflow.Go(wctx, func(g workflow.Context) {
		for {
			if t.waiting > 0 {
				if err := workflow.Await(g, func() bool { return t.waiting == 0 }); err != nil {
					return
				}
				t.log.lastAt = workflow.Now(g)
				continue
			}
			left := t.log.lastAt.Add(d).Sub(workflow.Now(g))
			if left <= 0 {
				if t.errText == "" {
					t.errText = fmt.Sprintf("turn stalled: no event for %s (stall timeout)", d)
					t.stalled = true
				}
				cancel()
				return
			}
			if _, err := awaitNamed(g, left, "stall watch · "+d.String(), func() bool { return t.waiting > 0 }); err != nil {
				return
			}
		}
	})
	return ctx, func() { stop(); cancel() }
}
