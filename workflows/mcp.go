package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// mcpTools lists the tools of the thread's MCP servers for this turn.
func (t *turn) mcpTools(ctx workflow.Context) []harness.ExternalTool {
	return nil
}

// runMCP calls a tool of an MCP server.
func (t *turn) runMCP(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	return harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name,
		Text: "error: MCP tools are not available yet", Error: true}
}
