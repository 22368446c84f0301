package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/harness"
)

// mcpTools lists the tools of the turn's MCP servers (the thread's plus
// [turn.extraServers]) on the workspace host, where stdio servers run. It
// issues no command when there are no servers. An optional server that
// fails leaves a warning item; a required one fails the turn with an
// error naming it. offered are the external tools already offered, whose
// names MCP tools must not take.
func (t *turn) mcpTools(ctx workflow.Context, offered []harness.ExternalTool) ([]harness.ExternalTool, error) {
	extra, clashes := t.extraServers()
	servers, dups := mcpclient.Merge(t.in.Config.MCPServers, extra)
	dups = append(clashes, dups...)
	h, err := harness.Lookup(t.in.Config.Harness)
	if len(servers) == 0 || err != nil || h.Info().TextLoop {
		return nil, nil // a text-loop harness offers the model no tools
	}
	for _, d := range dups {
		t.warn(d)
	}
	t.st.MCPServers = servers
	var taken []string
	for _, s := range h.Tools() {
		taken = append(taken, s.Name)
	}
	for _, x := range offered {
		taken = append(taken, x.Name)
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           t.in.Config.HostQueue,
		StartToCloseTimeout: activities.MCPListTimeout(servers),
		Summary:             oneLine("mcp: list tools · "+strings.Join(names, ", "), 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}
	in := activities.MCPListToolsInput{ThreadID: t.in.ThreadID, Servers: servers, Taken: taken}
	var out activities.MCPListToolsOutput
	if err := t.onHost(ctx, opts, acts.MCPListTools, in, &out); err != nil {
		if ctx.Err() != nil {
			return nil, nil // the loop ends the turn as interrupted
		}
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.Type() == activities.ErrMCPRequired {
			return nil, errors.New(app.Message())
		}
		msg := fmt.Sprintf("listing the tools of the MCP servers (%s) failed: %s", strings.Join(names, ", "), rootMessage(err))
		for _, s := range servers {
			if s.Required {
				return nil, errors.New(msg)
			}
		}
		t.warn(msg + "; the turn goes on without their tools")
		return nil, nil
	}
	for _, w := range out.Warnings {
		t.warn(w)
	}
	return out.Tools, nil
}

// warn adds a warning the turn goes on after, as an error item.
func (t *turn) warn(msg string) {
	it := t.newItem(ItemError)
	it.Message = "warning: " + msg
	t.log.add(Event{Type: EventItemCompleted, Item: it})
}

// runMCP calls a tool of an MCP server once, on the workspace host, and
// shows it as an mcp_tool_call item. The tool's failures are results the
// model reads; a worker lost during the call leaves the outcome unknown,
// and the call is not made again.
func (t *turn) runMCP(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	reply := harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name}
	var srv mcpclient.Server
	found := false
	for _, s := range t.st.MCPServers {
		if s.Name == x.Server {
			srv, found = s, true
			break
		}
	}
	if !found {
		reply.Text, reply.Error = fmt.Sprintf("error: mcp server %q is not configured in this turn", x.Server), true
		return reply
	}
	it := t.newItem(ItemMCPToolCall)
	it.Server, it.Tool, it.Arguments, it.Status = x.Server, x.Tool, c.Inv.Arguments, StatusInProgress
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	quiet := t.quietTools(ctx)
	opts := workflow.ActivityOptions{
		TaskQueue:           t.in.Config.HostQueue,
		StartToCloseTimeout: activities.MCPCallTimeout(srv),
		HeartbeatTimeout:    t.toolHeartbeat(quiet),
		Summary:             oneLine("mcp: "+x.Server+" · "+x.Tool, 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	in := activities.MCPCallToolInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Server: srv, Tool: x.Tool,
		Arguments: []byte(c.Inv.Arguments), MaxOutput: t.in.Config.MaxToolOutput}
	var out activities.MCPCallToolOutput
	err := t.onHostRun(ctx, opts, func(o workflow.ActivityOptions) error {
		f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), acts.MCPCallTool, in)
		return t.awaitTool(ctx, quiet, f, c.Call.CallID, o.TaskQueue, &out)
	})
	switch {
	case err != nil && ctx.Err() != nil:
		out = activities.MCPCallToolOutput{Output: "not finished: the turn was stopped during the call of " + x.Tool, IsError: true}
		it.Status = StatusInterrupted
	case err != nil && isTimeout(err):
		out = activities.MCPCallToolOutput{IsError: true, Output: fmt.Sprintf("mcp server %q: the call of %s was interrupted: the worker running it stopped. "+
			"Its outcome is unknown and it was NOT made again.", x.Server, x.Tool)}
		it.Status = StatusInterrupted
	case err != nil:
		out = activities.MCPCallToolOutput{Output: fmt.Sprintf("mcp server %q: tool %s failed: %s", x.Server, x.Tool, rootMessage(err)), IsError: true}
		it.Status = StatusFailed
	case out.IsError:
		it.Status = StatusFailed
	default:
		it.Status = StatusCompleted
	}
	if out.IsError {
		it.Message = out.Output
	} else {
		it.Result = out.Output
	}
	it.DurationMs = out.DurationMs
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	reply.Text, reply.Error = out.Output, out.IsError
	return reply
}
