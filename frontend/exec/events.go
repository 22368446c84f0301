package exec

import (
	"encoding/json"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The JSON lines of `exec --json`, in the shape `codex exec --json` prints
// them. Fields are declared in alphabetical order, the order codex's
// output (and a map's) has, so the bytes stay what clients have seen.

type threadStartedEvent struct {
	ThreadID string `json:"thread_id"`
	Type     string `json:"type"`
}

type typeOnlyEvent struct {
	Type string `json:"type"`
}

type itemEvent struct {
	Item any    `json:"item"`
	Type string `json:"type"`
}

type errorEvent struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

type turnCompletedEvent struct {
	Type  string    `json:"type"`
	Usage execUsage `json:"usage"`
}

type execUsage struct {
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	InputTokens           int64 `json:"input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

type turnFailedEvent struct {
	Error errorMessage `json:"error"`
	Type  string       `json:"type"`
}

type errorMessage struct {
	Message string `json:"message"`
}

// The items, one struct per item type.

type plainItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type textItem struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Type string `json:"type"`
}

type commandItem struct {
	AggregatedOutput string `json:"aggregated_output"`
	Command          string `json:"command"`
	ExitCode         *int   `json:"exit_code,omitempty"`
	ID               string `json:"id"`
	Status           string `json:"status"`
	Type             string `json:"type"`
}

type fileChangeItem struct {
	Changes []workflows.FileChange `json:"changes"`
	ID      string                 `json:"id"`
	Status  string                 `json:"status"`
	Type    string                 `json:"type"`
}

type todoListItem struct {
	ID    string               `json:"id"`
	Items []workflows.TodoItem `json:"items"`
	Type  string               `json:"type"`
}

type errorItem struct {
	ID      string `json:"id"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

type mcpItem struct {
	Arguments any           `json:"arguments"` // the call's own JSON, free-form
	Error     *errorMessage `json:"error"`
	ID        string        `json:"id"`
	Result    *mcpResult    `json:"result"`
	Server    string        `json:"server"`
	Status    string        `json:"status"`
	Tool      string        `json:"tool"`
	Type      string        `json:"type"`
}

type mcpResult struct {
	Content           []textContent `json:"content"`
	StructuredContent any           `json:"structured_content"`
}

type textContent struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// jsonItem renders an item with the fields `codex exec --json` gives each
// item type.
func jsonItem(it *workflows.Item) any {
	switch it.Type {
	case workflows.ItemAgentMessage, workflows.ItemReasoning:
		return textItem{ID: it.ID, Text: it.Text, Type: it.Type}
	case workflows.ItemCommandExecution:
		return commandItem{AggregatedOutput: it.AggregatedOutput, Command: it.Command, ExitCode: it.ExitCode,
			ID: it.ID, Status: workflows.ShownStatus(it.Status), Type: it.Type}
	case workflows.ItemFileChange:
		changes := it.Changes
		if changes == nil {
			changes = []workflows.FileChange{}
		}
		return fileChangeItem{Changes: changes, ID: it.ID, Status: workflows.ShownStatus(it.Status), Type: it.Type}
	case workflows.ItemTodoList:
		items := it.Items
		if items == nil {
			items = []workflows.TodoItem{}
		}
		return todoListItem{ID: it.ID, Items: items, Type: it.Type}
	case workflows.ItemError:
		return errorItem{ID: it.ID, Message: it.Message, Type: it.Type}
	case workflows.ItemMCPToolCall:
		return mcpJSONItem(it)
	}
	return plainItem{ID: it.ID, Type: it.Type}
}

// mcpJSONItem renders an mcp_tool_call item as `codex exec --json` shows
// one: arguments as JSON, the result as text content, or the error.
func mcpJSONItem(it *workflows.Item) mcpItem {
	m := mcpItem{ID: it.ID, Server: it.Server, Status: it.Status, Tool: it.Tool, Type: it.Type}
	var args any = struct{}{}
	if it.Arguments != "" && json.Unmarshal([]byte(it.Arguments), &args) != nil {
		args = it.Arguments
	}
	m.Arguments = args
	switch {
	case it.Status == workflows.StatusCompleted:
		m.Result = &mcpResult{Content: []textContent{{Text: it.Result, Type: "text"}}}
	case it.Message != "":
		m.Error = &errorMessage{Message: it.Message}
	}
	return m
}
