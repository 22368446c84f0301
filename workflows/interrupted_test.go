package workflows

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

func TestInterruptedReportTellsHowLongItRan(t *testing.T) {
	hb := activities.ExecProgress{Total: 10, Offset: 4, Tail: []byte("tail\n"), ElapsedMs: 2100}
	timeout := temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil, hb)
	ms, out := interruptedReport(fmt.Errorf("activity error: %w", timeout), workerStopped)
	if ms != 2100 || !strings.HasPrefix(out, "[... 4 bytes before]\ntail\n") || !strings.HasSuffix(out, workerStopped) {
		t.Errorf("worker died: got %d ms, %q", ms, out)
	}
	canceled := temporal.NewCanceledError(activities.ExecOutput{DurationMs: 1500, Output: "partial"})
	ms, out = interruptedReport(canceled, "[stopped]")
	if ms != 1500 || out != "partial\n[stopped]" {
		t.Errorf("stopped: got %d ms, %q", ms, out)
	}
	// No heartbeat reached the server (killed within its first second).
	ms, out = interruptedReport(temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil), workerStopped)
	if ms != 0 || out != workerStopped {
		t.Errorf("no heartbeat: got %d ms, %q", ms, out)
	}
}

// A command whose worker died reports the run time and output of its
// last heartbeat.
func TestTurnInterruptedCommandReportsItsRun(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "make deploy")), nil
		}
		return answer(n, "done"), nil
	}})
	hb := activities.ExecProgress{CallID: "c1", Total: 8, Tail: []byte("partial\n"), ElapsedMs: 2100}
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).
		Return(nil, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil, hb)).Once()
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
	turnResult(t, env)

	items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
	require.Len(t, items, 2)
	it := items[1].Item
	require.Equal(t, StatusInterrupted, it.Status)
	require.Equal(t, StatusFailed, ShownStatus(it.Status))
	require.Equal(t, int64(2100), it.DurationMs)
	require.Equal(t, "partial\n"+workerStopped, it.AggregatedOutput)
}
