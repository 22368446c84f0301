package threads

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/workflows"
)

// ConsolidateMemories runs a consolidation now and waits for it; when one
// is running already it waits for that one.
func ConsolidateMemories(ctx context.Context, c client.Client, taskQueue string, req workflows.ConsolidateRequest) (workflows.ConsolidateResult, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.MemoryConsolidationID,
		TaskQueue:                taskQueue,
		StaticSummary:            "memory consolidation (on demand)",
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.MemoryConsolidationWorkflow, req)
	if err != nil {
		return workflows.ConsolidateResult{}, fmt.Errorf("starting the memory consolidation: %w", err)
	}
	var res workflows.ConsolidateResult
	if err := run.Get(ctx, &res); err != nil {
		return res, fmt.Errorf("memory consolidation: %w", err)
	}
	return res, nil
}
