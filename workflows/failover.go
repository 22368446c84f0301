package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// A handed-off model call whose worker is lost is made afresh by the
// server itself, on the shared queue, right after its heartbeat timeout
// ([activities.Failover]), with no workflow task first waiting out the
// dead worker's sticky queue.

// handoffHeartbeat is a handed-off call's heartbeat timeout: with the
// server retrying at once,
// it is most of what a lost worker costs the turn. The call streams all
// the while, and its worker heartbeats four times in that span.
const handoffHeartbeat = 1500 * time.Millisecond

// armFailover sets up a handed-off call so that, should its worker be
// lost, the server retries it on the turn's own (shared) queue: the
// worker holding the call asks for that attempt as it takes the call over;
// the workflow only says where, and lists the error types of a call that
// failed (not lost), which the workflow retries itself as before.
func (t *turn) armFailover(ctx workflow.Context, opts *workflow.ActivityOptions, in *activities.ModelInput) {
	in.FailoverQueue = workflow.GetInfo(ctx).TaskQueueName
	opts.RetryPolicy.NonRetryableErrorTypes = activities.ModelAttemptErrorTypes
	if t.in.Config.ModelHeartbeat <= 0 {
		opts.HeartbeatTimeout = handoffHeartbeat
	}
}
