package devtest

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"
)

// RunStats measures one workflow run's history.
type RunStats struct {
	RunID      string
	Events     int
	Bytes      int
	MaxPayload int
	MaxType    string
	NextRunID  string
}

// ChainStats measures every run of a workflow id, following
// continue-as-new from the first run.
func (w *World) ChainStats(ctx context.Context, workflowID string) ([]RunStats, error) {
	first, err := w.firstRun(ctx, workflowID)
	if err != nil {
		return nil, err
	}
	var out []RunStats
	for run := first; run != ""; {
		st, err := w.runStats(ctx, workflowID, run)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
		run = st.NextRunID
	}
	return out, nil
}

func (w *World) firstRun(ctx context.Context, workflowID string) (string, error) {
	it := w.Client.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	ev, err := it.Next()
	if err != nil {
		return "", err
	}
	first := ev.GetWorkflowExecutionStartedEventAttributes().GetFirstExecutionRunId()
	return first, nil
}

func (w *World) runStats(ctx context.Context, workflowID, runID string) (RunStats, error) {
	st := RunStats{RunID: runID}
	it := w.Client.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return st, err
		}
		st.Events++
		n := proto.Size(ev)
		st.Bytes += n
		if n > st.MaxPayload {
			st.MaxPayload, st.MaxType = n, ev.GetEventType().String()
		}
		if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			st.NextRunID = a.GetNewExecutionRunId()
		}
	}
	return st, nil
}
