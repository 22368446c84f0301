package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// prepareTools gathers the external tools a turn offers besides the
// harness's own: the thread's dynamic tools and the tools of its MCP
// servers. It runs once per turn, so a change of configuration (a skill
// disabled, a server added) shows in the next turn. A required MCP server
// that fails to start fails the turn.
func (t *turn) prepareTools(ctx workflow.Context) error {
	var tools []harness.ExternalTool
	tools = append(tools, t.in.Config.DynamicTools...)
	mcp, err := t.mcpTools(ctx, tools)
	if err != nil {
		return err
	}
	tools = append(tools, mcp...)
	tools = append(tools, t.agentTools()...)
	tools = append(tools, t.goalTools()...)
	t.st.External = tools
	return nil
}

// externalTool finds the offered tool a call names.
func (t *turn) externalTool(name string) (harness.ExternalTool, bool) {
	for _, x := range t.st.External {
		if x.Name == name {
			return x, true
		}
	}
	return harness.ExternalTool{}, false
}

// runExternal runs a call of an MCP or dynamic tool.
func (t *turn) runExternal(ctx workflow.Context, c activities.DecodedCall) harness.Entry {
	reply := harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name}
	x, ok := t.externalTool(c.Inv.External)
	if !ok {
		reply.Text, reply.Error = fmt.Sprintf("error: tool %q is not available in this turn", c.Call.Name), true
		return reply
	}
	switch x.Source {
	case harness.SourceMCP:
		return t.runMCP(ctx, c, x)
	case harness.SourceDynamic:
		return t.runDynamic(ctx, c, x)
	case harness.SourceAgents:
		return t.runAgentTool(ctx, c, x)
	case harness.SourceGoals:
		return t.runGoalTool(ctx, c, x)
	}
	reply.Text, reply.Error = fmt.Sprintf("error: tool %q has an unknown source %q", c.Call.Name, x.Source), true
	return reply
}
