package workflows

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/harness"
)

func mcpCall(id, name, args string) activities.DecodedCall {
	return activities.DecodedCall{Call: harness.ToolCall{CallID: id, Name: name, Arguments: args},
		Inv: harness.Invocation{Tool: harness.ToolExternal, External: name, Arguments: args}}
}

// The turn lists its MCP servers' tools once, on the host queue, offers
// them to the model after the harness's own (whose names they may not
// take), and runs a call of one as an mcp_tool_call item. A call whose
// worker was lost is not made again: the model is told its outcome is
// unknown.
func TestMCPToolsOfferedAndCallNotRetried(t *testing.T) {
	env := newEnv(t)
	cfg := testConfig()
	cfg.MCPServers = []mcpclient.Server{{Name: "docs", Command: "docs-server"}}
	var listed activities.MCPListToolsInput
	env.OnActivity(a.MCPListTools, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.MCPListToolsInput) (activities.MCPListToolsOutput, error) {
			listed = in
			return activities.MCPListToolsOutput{Tools: []harness.ExternalTool{
				{Name: "mcp__docs__search", Source: harness.SourceMCP, Server: "docs", Tool: "search",
					Parameters: map[string]any{"type": "object"}},
				{Name: "mcp__docs__lost", Source: harness.SourceMCP, Server: "docs", Tool: "lost"},
			}, Warnings: []string{`mcp server "other" failed to start: boom; the turn goes on without its tools`}}, nil
		})
	var calls atomic.Int32
	env.OnActivity(a.MCPCallTool, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.MCPCallToolInput) (activities.MCPCallToolOutput, error) {
			calls.Add(1)
			if in.Tool == "lost" {
				return activities.MCPCallToolOutput{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
			}
			if in.Server.Name != "docs" || string(in.Arguments) != `{"q":"x"}` {
				return activities.MCPCallToolOutput{}, temporal.NewNonRetryableApplicationError("bad input", "test", nil)
			}
			return activities.MCPCallToolOutput{Output: "found: x"}, nil
		})
	m := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return &activities.ModelOutput{Transcript: transcriptRef(n), Calls: []activities.DecodedCall{
				mcpCall("c1", "mcp__docs__search", `{"q":"x"}`), mcpCall("c2", "mcp__docs__lost", `{}`)}}, nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, m)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.NoError(t, env.GetWorkflowError())
	var res TurnResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, StatusCompleted, res.Status, res.Error)
	require.EqualValues(t, 2, calls.Load(), "each call is made once")
	require.Contains(t, listed.Taken, "exec_command")

	inputs := m.calls()
	require.Len(t, inputs[0].External, 2)
	require.Equal(t, "mcp__docs__search", inputs[0].External[0].Name)
	second := inputs[1].Append
	require.Len(t, second, 2)
	require.Equal(t, "found: x", second[0].Text)
	require.False(t, second[0].Error)
	require.True(t, second[1].Error)
	require.Contains(t, second[1].Text, "outcome is unknown")

	v, err := env.QueryWorkflow(QueryEvents, EventsRequest{})
	require.NoError(t, err)
	var page EventsPage
	require.NoError(t, v.Get(&page))
	var items []*Item
	warned := false
	for _, e := range page.Events {
		if e.Type == EventItemCompleted && e.Item.Type == ItemMCPToolCall {
			items = append(items, e.Item)
		}
		if e.Item != nil && e.Item.Type == ItemError && strings.Contains(e.Item.Message, `warning: mcp server "other"`) {
			warned = true
		}
	}
	require.True(t, warned, "no warning item for the optional server")
	require.Len(t, items, 2)
	require.Equal(t, Item{ID: items[0].ID, Type: ItemMCPToolCall, Server: "docs", Tool: "search", Arguments: `{"q":"x"}`,
		Result: "found: x", Status: StatusCompleted}, *items[0])
	require.Equal(t, StatusInterrupted, items[1].Status)
}

// A required server that fails fails the turn before any model call.
func TestRequiredMCPServerFailsTurn(t *testing.T) {
	env := newEnv(t)
	cfg := testConfig()
	cfg.MCPServers = []mcpclient.Server{{Name: "docs", Command: "docs-server", Required: true}}
	env.OnActivity(a.MCPListTools, mock.Anything, mock.Anything).Return(activities.MCPListToolsOutput{},
		temporal.NewNonRetryableApplicationError(`required mcp server "docs" failed to start: exec: not found`, activities.ErrMCPRequired, nil))
	m := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "no"), nil }}
	mockModel(env, m)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Equal(t, `required mcp server "docs" failed to start: exec: not found`, res.Error)
	require.Empty(t, m.calls())
}

// When the listing itself fails (after its retries) and no server is
// required, the turn warns and goes on without MCP tools.
func TestMCPListingFailureWithOptionalServersWarns(t *testing.T) {
	env := newEnv(t)
	cfg := testConfig()
	cfg.MCPServers = []mcpclient.Server{{Name: "docs", Command: "docs-server"}}
	env.OnActivity(a.MCPListTools, mock.Anything, mock.Anything).Return(activities.MCPListToolsOutput{},
		temporal.NewApplicationError("host unreachable", "test"))
	m := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "fine"), nil }}
	mockModel(env, m)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	var res TurnResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, StatusCompleted, res.Status, res.Error)
	require.Empty(t, m.calls()[0].External)
	v, err := env.QueryWorkflow(QueryEvents, EventsRequest{})
	require.NoError(t, err)
	var page EventsPage
	require.NoError(t, v.Get(&page))
	warned := false
	for _, e := range page.Events {
		if e.Item != nil && e.Item.Type == ItemError && strings.Contains(e.Item.Message, "listing the tools of the MCP servers (docs) failed: host unreachable") {
			warned = true
		}
	}
	require.True(t, warned)
}
