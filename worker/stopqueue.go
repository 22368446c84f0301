package worker

import (
	"bytes"
	"context"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/activities"
)

// commandWorker finds the identity of the worker running a turn's shell
// command (or other [stoppable] call): the pending activity whose
// heartbeat names the call id, or the turn's only pending one (one that
// has not heartbeated yet names none).
func commandWorker(c client.Client) func(context.Context, string, string) (string, error) {
	return func(ctx context.Context, turnID, callID string) (string, error) {
		d, err := c.DescribeWorkflowExecution(ctx, turnID, "")
		if err != nil {
			return "", fmt.Errorf("describing %s: %w", turnID, err)
		}
		want := []byte(fmt.Sprintf("%q:%q", "call_id", callID))
		var only []string
		for _, p := range d.GetPendingActivities() {
			if !stoppable[p.GetActivityType().GetName()] || p.GetLastWorkerIdentity() == "" {
				continue
			}
			for _, pl := range p.GetHeartbeatDetails().GetPayloads() {
				if bytes.Contains(pl.GetData(), want) {
					return p.GetLastWorkerIdentity(), nil
				}
			}
			only = append(only, p.GetLastWorkerIdentity())
		}
		if len(only) == 1 {
			return only[0], nil
		}
		return "", fmt.Errorf("%s: no running command %s found", turnID, callID)
	}
}

// stoppable are the activities a turn stops through StopCommand on the
// host queue: commands, unified-exec sessions' first calls and MCP calls
// (each heartbeats its call id).
var stoppable = map[string]bool{"Exec": true, "ExecCommand": true, "ResumeExecCommand": true, "MCPCallTool": true}

// Activities are the activities this worker runs (for tests that call
// one directly, as another worker of the host would).
func (w *Workers) Activities() *activities.Activities { return w.acts }
