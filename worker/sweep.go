package worker

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// turnEnded tells whether a turn's workflow has closed. A turn the server
// does not know counts as running: its records may belong to a worker of
// another namespace sharing this home (a turn past its retention leaves
// a few small files, no more).
func turnEnded(ctx context.Context, c client.Client, turnID string) bool {
	d, err := c.DescribeWorkflowExecution(ctx, turnID, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}
