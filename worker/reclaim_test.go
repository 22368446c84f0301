package worker

import (
	"testing"

	historypb "go.temporal.io/api/history/v1"
)

func TestLastTaskWorker(t *testing.T) {
	started := func(id string) *historypb.HistoryEvent {
		return &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_WorkflowTaskStartedEventAttributes{
			WorkflowTaskStartedEventAttributes: &historypb.WorkflowTaskStartedEventAttributes{Identity: id}}}
	}
	completed := func(id string) *historypb.HistoryEvent {
		return &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{
			WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{Identity: id}}}
	}
	other := &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
		ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{}}}
	for _, tc := range []struct {
		name string
		evs  []*historypb.HistoryEvent
		want string
	}{
		{"none", nil, ""},
		{"no task among them", []*historypb.HistoryEvent{other, other}, ""},
		{"completed is newest", []*historypb.HistoryEvent{other, completed("a@h/1 (q)"), started("b@h/2 (q)")}, "a@h/1 (q)"},
		{"a task in flight", []*historypb.HistoryEvent{started("b@h/2 (q)"), completed("a@h/1 (q)")}, "b@h/2 (q)"},
	} {
		if got := lastTaskWorker(tc.evs); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
