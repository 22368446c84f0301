package workflows

import (
	"fmt"
	"strings"
	"testing"

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
