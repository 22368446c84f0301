package exec

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The items `exec --json` prints keep the bytes of `codex exec --json`:
// keys in alphabetical order, empty lists as [], an MCP call's result or
// error as null until it has one.
func TestJSONItemBytes(t *testing.T) {
	exit := 2
	cases := []struct {
		item *workflows.Item
		want string
	}{
		{&workflows.Item{ID: "a", Type: workflows.ItemAgentMessage, Text: "hi"}, `{"id":"a","text":"hi","type":"agent_message"}`},
		{&workflows.Item{ID: "c", Type: workflows.ItemCommandExecution, Command: "ls", AggregatedOutput: "x", Status: workflows.StatusCompleted, ExitCode: &exit},
			`{"aggregated_output":"x","command":"ls","exit_code":2,"id":"c","status":"completed","type":"command_execution"}`},
		{&workflows.Item{ID: "d", Type: workflows.ItemFileChange, Status: workflows.StatusCompleted}, `{"changes":[],"id":"d","status":"completed","type":"file_change"}`},
		{&workflows.Item{ID: "e", Type: workflows.ItemTodoList}, `{"id":"e","items":[],"type":"todo_list"}`},
		{&workflows.Item{ID: "f", Type: workflows.ItemError, Message: "boom"}, `{"id":"f","message":"boom","type":"error"}`},
		{&workflows.Item{ID: "g", Type: workflows.ItemMCPToolCall, Server: "s", Tool: "t", Status: workflows.StatusCompleted, Arguments: `{"b":1,"a":[2]}`, Result: "ok"},
			`{"arguments":{"a":[2],"b":1},"error":null,"id":"g","result":{"content":[{"text":"ok","type":"text"}],"structured_content":null},"server":"s","status":"completed","tool":"t","type":"mcp_tool_call"}`},
		{&workflows.Item{ID: "h", Type: workflows.ItemMCPToolCall, Server: "s", Tool: "t", Status: "failed", Arguments: "not json", Message: "bad"},
			`{"arguments":"not json","error":{"message":"bad"},"id":"h","result":null,"server":"s","status":"failed","tool":"t","type":"mcp_tool_call"}`},
		{&workflows.Item{ID: "i", Type: workflows.ItemMCPToolCall, Server: "s", Tool: "t", Status: "in_progress"},
			`{"arguments":{},"error":null,"id":"i","result":null,"server":"s","status":"in_progress","tool":"t","type":"mcp_tool_call"}`},
		{&workflows.Item{ID: "j", Type: "web_search"}, `{"id":"j","type":"web_search"}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(jsonItem(c.item))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.item.ID, got, c.want)
		}
	}
}
