package threads

import (
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/workflows"
)

func recordedEvent(t *testing.T, name string, arg any) *historypb.HistoryEvent {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayloads(arg)
	if err != nil {
		t.Fatal(err)
	}
	return &historypb.HistoryEvent{
		EventType: enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
		Attributes: &historypb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes{
			SignalExternalWorkflowExecutionInitiatedEventAttributes: &historypb.SignalExternalWorkflowExecutionInitiatedEventAttributes{
				SignalName: name, Input: p,
			}},
	}
}

// The signal that ends a turn's last model call's task answers a
// follower when it carries the result; the one before a continue-as-new
// (no result) and other signals do not.
func TestRecordedResult(t *testing.T) {
	sent := workflows.TurnResult{TurnID: "th/1", Status: workflows.StatusCompleted, FinalMessage: "done",
		Tail: []workflows.Event{{Seq: 4, Type: workflows.EventItemCompleted}, {Seq: 5, Type: workflows.EventTurnCompleted}}}
	ev := recordedEvent(t, workflows.SignalRecorded, sent)
	if !recorded(ev) {
		t.Fatal("not recognised as the turn's own signal")
	}
	res := recordedResult(ev)
	if res == nil || res.FinalMessage != "done" || !tailFollows(res.Tail, 3) {
		t.Fatalf("result: %+v", res)
	}
	if tailFollows(res.Tail, 2) {
		t.Fatal("a tail that skips events follows a reader that lacks them")
	}
	if res := recordedResult(recordedEvent(t, workflows.SignalRecorded, nil)); res != nil {
		t.Fatalf("no result in a nil input: %+v", res)
	}
	if recorded(recordedEvent(t, workflows.SignalAgentReply, sent)) {
		t.Fatal("another signal taken for the turn's own")
	}
	if recorded(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED}) {
		t.Fatal("a task completion taken for the signal")
	}
}
