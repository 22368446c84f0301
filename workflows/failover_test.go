package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/activities"
)

// From turn code 9 a handed-off call taken over on its worker's queue names
// the turn's queue for the server's retry of a lost call, and has the
// shorter heartbeat timeout; earlier codes schedule it as before.
func TestHandedOffCallNamesItsFailoverQueue(t *testing.T) {
	for _, tc := range []struct {
		code      int
		queue     string
		heartbeat time.Duration
	}{
		{code: failoverCode, queue: "default-test-taskqueue", heartbeat: handoffHeartbeat},
		{code: hostWaitCode, queue: "", heartbeat: modelHeartbeat},
	} {
		env := newEnv(t)
		var heartbeats []time.Duration
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			if info.TaskQueue == "calls-q" {
				heartbeats = append(heartbeats, info.HeartbeatTimeout)
			}
		})
		var failover []string
		env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
			if in.Budget > 0 {
				return &activities.ModelOutput{Handoff: "h", HandoffQueue: "calls-q"}, nil
			}
			failover = append(failover, in.FailoverQueue)
			return answer(in.Step, "done"), nil
		})
		cfg := testConfig()
		cfg.ModelHeartbeat = 0 // the turn's own
		in := turnInput(cfg)
		in.Code = tc.code
		env.ExecuteWorkflow(TurnWorkflow, in)
		res := turnResult(t, env)
		require.Equal(t, StatusCompleted, res.Status, res.Error)
		require.Equal(t, []string{tc.queue}, failover, "code %d", tc.code)
		require.Equal(t, []time.Duration{tc.heartbeat}, heartbeats, "code %d", tc.code)
	}
}
