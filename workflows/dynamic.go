package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// runDynamic asks the front end that declared a dynamic tool to run it.
func (t *turn) runDynamic(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	return harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name,
		Text: "error: dynamic tools are not available yet", Error: true}
}
