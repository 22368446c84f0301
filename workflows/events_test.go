package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// eventSize must never underestimate: the carried log is bounded by it.
func TestEventSizeBoundsJSON(t *testing.T) {
	exit := 3
	cases := []Event{
		{Type: EventTurnStarted},
		{Type: EventItemCompleted, Item: &Item{ID: "item_1", Type: ItemCommandExecution, Command: `echo "<a&b>"`,
			AggregatedOutput: strings.Repeat("\x00\n\t\"\\", 500), ExitCode: &exit, Status: StatusFailed, Cwd: "/tmp/ü"}},
		{Type: EventItemCompleted, Item: &Item{ID: "item_2", Type: ItemFileChange, Changes: []FileChange{{Path: "a/b.go", Kind: "update"}}}},
		{Type: EventItemCompleted, Item: &Item{ID: "item_3", Type: ItemTodoList, Items: []TodoItem{{Text: "step & more", Completed: true}}}},
		{Type: EventTurnFailed, Error: strings.Repeat("<error>", 100)},
	}
	for _, e := range cases {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := eventSize(e); got < len(b) {
			t.Errorf("eventSize = %d < JSON size %d for %s", got, len(b), b[:min(len(b), 80)])
		}
	}
}

func TestTailKeepsNewestWithinBudget(t *testing.T) {
	l := newEventLog(nil, 0, "t/turn-1")
	for i := 0; i < 50; i++ {
		l.add(Event{Type: EventItemCompleted, Item: &Item{ID: "x", AggregatedOutput: strings.Repeat("o", 1000)}})
	}
	kept, last := l.tail(500, 10_000)
	if last != 50 || len(kept) == 0 || kept[len(kept)-1].Seq != 50 {
		t.Fatalf("tail kept %d events ending at %v, last %d", len(kept), kept, last)
	}
	size := 0
	for _, e := range kept {
		size += eventSize(e)
	}
	if size > 10_000 || len(kept) >= 50 {
		t.Fatalf("tail kept %d events of %d bytes, budget 10000", len(kept), size)
	}
}

// A wait that sees the turn end brings the last events when they are few
// and small; not when they are large or some were dropped.
func TestFinalEventsOnlyWhenSmall(t *testing.T) {
	l := newEventLog(nil, 0, "t/turn-1")
	l.add(Event{Type: EventTurnStarted})
	l.add(Event{Type: EventItemCompleted, Item: &Item{ID: "item_1", Type: ItemAgentMessage, Text: "answer"}})
	l.add(Event{Type: EventTurnCompleted})
	if got := l.since(1); len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 3 {
		t.Fatalf("since(1) = %v, want events 2 and 3", got)
	}
	if got := l.since(3); got != nil {
		t.Fatalf("since(3) = %v, want nothing", got)
	}
	l.add(Event{Type: EventItemCompleted, Item: &Item{ID: "item_2", Type: ItemAgentMessage, Text: strings.Repeat("x", waitEventsBudget)}})
	if got := l.since(1); got != nil {
		t.Fatalf("since(1) over budget = %d events, want none", len(got))
	}
	carried, last := l.tail(1, 1<<20)
	dropped := newEventLog(carried, last, "t/turn-1")
	if got := dropped.since(1); got != nil {
		t.Fatalf("final after dropped events = %v, want none", got)
	}
}

// A wait that asks to hold the opening events is answered once, at the end,
// when the model answers within the hold; with a slow model it is answered
// when the hold runs out, with the opening events only.
func TestWaitHoldsTheOpeningForTheFirstAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		modelTime time.Duration
		wantDone  bool
		wantAt    time.Duration
	}{
		{name: "fast model", modelTime: 100 * time.Millisecond, wantDone: true, wantAt: 100 * time.Millisecond},
		{name: "slow model", modelTime: 10 * time.Second, wantDone: false, wantAt: 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(tc.modelTime).Return(answer(1, "done"), nil)
			var start time.Time
			var answered time.Duration
			var got WaitResponse
			var gotErr error
			env.RegisterDelayedCallback(func() {
				start = env.Now()
				env.UpdateWorkflow(UpdateWaitEvents, "", &testsuite.TestUpdateCallback{
					OnAccept: func() {},
					OnReject: func(err error) { gotErr = err },
					OnComplete: func(v any, err error) {
						answered = env.Now().Sub(start)
						gotErr = err
						if r, ok := v.(WaitResponse); ok {
							got = r
						}
					},
				}, WaitRequest{After: 0, TimeoutMs: 20000, HoldMs: 250})
			}, 0)
			env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

			require.Equal(t, StatusCompleted, turnResult(t, env).Status)
			require.NoError(t, gotErr)
			require.Equal(t, tc.wantDone, got.Done)
			require.Equal(t, tc.wantAt, answered)
			require.NotEmpty(t, got.Events)
			require.Equal(t, EventTurnStarted, got.Events[0].Type)
			if tc.wantDone {
				require.NotNil(t, got.Result)
				require.Equal(t, "done", got.Result.FinalMessage)
			} else {
				require.Nil(t, got.Result)
				for _, e := range got.Events {
					require.NotEqual(t, ItemAgentMessage, itemType(e), "an answer's event came with the opening")
				}
			}
		})
	}
}

func itemType(e Event) string {
	if e.Item == nil {
		return ""
	}
	return e.Item.Type
}

// Once a hold ran out, the reader's next waits on the same slow call do
// not hold again: one hold timer in all.
func TestWaitHoldsOnlyOnce(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(10*time.Second).Return(answer(1, "done"), nil)
	holds := 0
	env.SetOnTimerScheduledListener(func(_ string, d time.Duration) {
		if d == 250*time.Millisecond {
			holds++
		}
	})
	var answers []WaitResponse
	var wait func(after int)
	wait = func(after int) {
		env.UpdateWorkflow(UpdateWaitEvents, "", &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { t.Errorf("wait refused: %v", err) },
			OnComplete: func(v any, err error) {
				require.NoError(t, err)
				r := v.(WaitResponse)
				answers = append(answers, r)
				if !r.Done {
					wait(r.Last)
				}
			},
		}, WaitRequest{After: after, TimeoutMs: 20000, HoldMs: 250})
	}
	env.RegisterDelayedCallback(func() { wait(0) }, 0)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Len(t, answers, 2, "the opening after the hold, then the end")
	require.True(t, answers[1].Done)
	require.Equal(t, 1, holds)
}

// A page of an ended turn's log carries its result, so a follower answers
// before the run closes; not before the end, nor on a page cut short.
func TestEventsPageCarriesTheResultOnceDone(t *testing.T) {
	l := newEventLog(nil, 0, "t/turn-1")
	l.add(Event{Type: EventTurnStarted})
	l.add(Event{Type: EventItemCompleted, Item: &Item{ID: "item_1", Type: ItemAgentMessage, Text: "answer"}})
	if p := l.page(EventsRequest{}); p.Result != nil || p.Done {
		t.Fatalf("a running turn's page = %+v, want no result", p)
	}
	l.add(Event{Type: EventTurnCompleted})
	l.result = &TurnResult{TurnID: "t/turn-1", Status: StatusCompleted, FinalMessage: "answer"}
	l.done = true
	if p := l.page(EventsRequest{After: 1, Limit: 1}); p.Result != nil {
		t.Fatalf("a page short of the end carries %+v, want no result", p.Result)
	}
	p := l.page(EventsRequest{After: 1})
	if p.Result == nil || p.Result.FinalMessage != "answer" || p.Last != 3 {
		t.Fatalf("the ended turn's page = %+v, want its result up to event 3", p)
	}
}
