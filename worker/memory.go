package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/workflows"
)

// EnsureMemorySchedule creates the Temporal Schedule that consolidates
// memories every interval (one at a time: a run that finds a consolidation
// running skips). An existing schedule is updated to the interval.
func EnsureMemorySchedule(ctx context.Context, c client.Client, taskQueue string, every time.Duration, req workflows.ConsolidateRequest) error {
	if every <= 0 {
		every = time.Hour
	}
	action := &client.ScheduleWorkflowAction{
		ID:        "interpreter-memory-scheduled",
		Workflow:  workflows.ScheduledMemoryWorkflow,
		Args:      []any{req},
		TaskQueue: taskQueue,
	}
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      workflows.MemoryScheduleID,
		Spec:    spec,
		Action:  action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Note:    "interpreter: consolidate memories into MEMORY.md",
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		h := c.ScheduleClient().GetHandle(ctx, workflows.MemoryScheduleID)
		err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := in.Description.Schedule
			s.Spec = &spec
			s.Action = action
			return &client.ScheduleUpdate{Schedule: &s}, nil
		}})
	}
	if err != nil {
		return fmt.Errorf("memory consolidation schedule: %w", err)
	}
	return nil
}
