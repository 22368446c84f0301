package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// A handed-off call taken over on its worker's queue names the turn's
// queue for the server's retry of a lost call, and has the shorter
// heartbeat timeout.
func TestHandedOffCallNamesItsFailoverQueue(t *testing.T) {
	for _, tc := range []struct {
		queue     string
		heartbeat time.Duration
	}{
		{queue: "default-test-taskqueue", heartbeat: handoffHeartbeat},
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
		cfg.ModelCalls = ModelCallsAuto
		env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
		res := turnResult(t, env)
		require.Equal(t, StatusCompleted, res.Status, res.Error)
		require.Equal(t, []string{tc.queue}, failover)
		require.Equal(t, []time.Duration{tc.heartbeat}, heartbeats)
	}
}

// A host whose lost worker the server still lists as a poller (for about
// a minute after it died) fails the turn after host_wait, with nothing run.
func TestHostListedButTakingNothingFailsAfterHostWait(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(1, "", shellCall("c1", "true")), nil
	})
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).Return((*activities.ExecOutput)(nil),
		temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil))
	polls := 0
	env.OnActivity(a.HostPollers, mock.Anything, mock.Anything).Return(func(context.Context, activities.HostPollersInput) (activities.HostPollersOutput, error) {
		polls++
		return activities.HostPollersOutput{Live: 1}, nil
	})
	cfg := testConfig()
	cfg.HostWait = time.Minute
	cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Error, "no worker of host host took the tool call: gave up after 1m0s")
	// The mock times out at once; the steps it stood for: 5 s, then 15,
	// 15, 15 and the last 10 s of the minute, each followed by a look.
	require.Equal(t, 5, polls)
}

// An exec_command session on a host no worker serves waits as a shell
// command does: a warning, then a failed turn after
// host_wait, nothing run.
func TestSessionOnAMissingHostFailsAfterHostWait(t *testing.T) {
	env := newEnv(t)
	script := "sleep 1"
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(1, "", activities.DecodedCall{
			Call: harness.ToolCall{CallID: "s1", Name: "exec_command", Arguments: `{"cmd":"sleep 1"}`},
			Inv:  harness.Invocation{Tool: harness.ToolExecCommand, Script: script},
		}), nil
	})
	env.OnActivity(a.ExecCommand, mock.Anything, mock.Anything).Return((*activities.SessionOutput)(nil),
		temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil))
	env.OnActivity(a.HostPollers, mock.Anything, mock.Anything).Return(activities.HostPollersOutput{}, nil)
	cfg := testConfig()
	cfg.HostWait = time.Minute
	cfg.ApprovalPolicy, cfg.SandboxMode = "never", "danger-full-access"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Error, "no worker serves host host: gave up after 1m0s")
	var warned bool
	for _, e := range queryEvents(t, env).Events {
		warned = warned || e.Item != nil && strings.Contains(e.Item.Message, "no worker serves host host; waiting")
	}
	require.True(t, warned, "no warning logged")
}
