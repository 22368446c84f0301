package devtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

func everythingServer(t *testing.T, name string) mcpclient.Server {
	argv := mcptest.Everything(t)
	return mcpclient.Server{Name: name, Command: argv[0], Args: argv[1:]}
}

func turnEvents(t *testing.T, w *World, turnID string) []workflows.Event {
	var events []workflows.Event
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := threads.FollowTurn(ctx, w.Client, turnID, 0, func(e workflows.Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	return events
}

// The model is offered the tools of a real MCP server (server-everything
// over stdio, started on the workspace host) next to its own, calls two
// of them and reads their results; an optional server that does not start
// leaves a warning and the turn goes on; the value of a server's secret
// env variable reaches neither the model nor the workflow history.
func TestTurnCallsMCPTools(t *testing.T) {
	const secret = "s3cret-value-4c1d9e"
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{
			toolCall("mcp__everything__echo", map[string]string{"message": "hi from the model"}),
			toolCall("mcp__everything__get-sum", map[string]int{"a": 20, "b": 22}),
			toolCall("mcp__everything__get-env", map[string]any{}),
		}},
		{Text: "done: the server echoed"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "w", MCPEnv: map[string]map[string]string{"everything": {"DOCS_TOKEN": secret}}})
	cfg := w.Config("")
	srv := everythingServer(t, "everything")
	srv.Env = []string{"DOCS_TOKEN"}
	srv.DisabledTools = []string{"trigger-long-running-operation"}
	cfg.MCPServers = []mcpclient.Server{srv, {Name: "broken", Command: "/nonexistent/mcp-server"}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	threadID, res := w.RunTurn(ctx, cfg, "use the echo tool")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "done: the server echoed" {
		t.Fatalf("turn %s: %s (%q)", res.Status, res.Error, res.FinalMessage)
	}
	reqs := w.Model.Server.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	first, last := string(reqs[0].Body), string(reqs[1].Body)
	for _, want := range []string{`"name":"mcp__everything__echo"`, `"name":"mcp__everything__get-sum"`, "Message to echo", `"name":"exec_command"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request does not offer %s", want)
		}
	}
	if strings.Contains(first, "trigger-long-running-operation") {
		t.Errorf("a disabled tool was offered")
	}
	for _, want := range []string{"Echo: hi from the model", "42", "DOCS_TOKEN", mcpclient.Redacted} {
		if !strings.Contains(last, want) {
			t.Errorf("the model did not read %q:\n%.2000s", want, last)
		}
	}
	if strings.Contains(last, secret) {
		t.Errorf("the secret reached the model")
	}
	var calls []*workflows.Item
	var warning string
	for _, e := range turnEvents(t, w, res.TurnID) {
		if e.Type == workflows.EventItemCompleted && e.Item.Type == workflows.ItemMCPToolCall {
			calls = append(calls, e.Item)
		}
		if e.Item != nil && e.Item.Type == workflows.ItemError {
			warning = e.Item.Message
		}
	}
	if len(calls) != 3 || calls[0].Server != "everything" || calls[0].Tool != "echo" || calls[0].Status != workflows.StatusCompleted ||
		!strings.Contains(calls[0].Result, "Echo: hi from the model") || !strings.Contains(calls[0].Arguments, "hi from the model") {
		t.Errorf("mcp_tool_call items: %+v", calls)
	}
	if !strings.Contains(warning, `mcp server "broken" failed to start`) {
		t.Errorf("warning = %q", warning)
	}
	// Nothing in history carries the secret value.
	for _, id := range []string{threadID, res.TurnID} {
		iter := w.Client.GetWorkflowHistory(ctx, id, "", false, 0)
		for iter.HasNext() {
			ev, err := iter.Next()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(ev)
			if strings.Contains(string(b), secret) {
				t.Fatalf("workflow %s history carries the secret value: event %d", id, ev.EventId)
			}
		}
	}
}

// A required server that does not start fails the turn with an error
// naming it; the thread takes the next turn.
func TestRequiredMCPServerFailsTheTurn(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "fine"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.MCPServers = []mcpclient.Server{{Name: "tracker", URL: "http://127.0.0.1:1/mcp", Required: true, StartupTimeout: 2 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	threadID, res := w.RunTurn(ctx, cfg, "hello")
	if res.Status != workflows.StatusFailed || !strings.Contains(res.Error, `required mcp server "tracker" failed to start`) {
		t.Fatalf("turn %s: %q", res.Status, res.Error)
	}
	if n := len(w.Model.Server.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	// The thread keeps working: the next turn fails the same clear way
	// rather than hanging.
	resp, err := threads.Reply(ctx, w.Client, threadID, workflows.StartTurnRequest{Prompt: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, threadID, resp.TurnID); res.Status != workflows.StatusFailed || !strings.Contains(res.Error, `"tracker"`) {
		t.Fatalf("second turn %s: %q", res.Status, res.Error)
	}
}

// A server that dies during a call: the model reads an error naming it,
// and its next call starts the server again.
func TestMCPServerCrashMidTurnReconnects(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{toolCall("mcp__crashy__crash", map[string]any{})}},
		{ToolCalls: []fakemodel.ToolCall{toolCall("mcp__crashy__echo", map[string]string{"message": "after the crash"})}},
		{Text: "recovered"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.MCPServers = []mcpclient.Server{{Name: "crashy", Command: mcptest.BuildServer(t)}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "crash it")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "recovered" {
		t.Fatalf("turn %s: %s (%q)", res.Status, res.Error, res.FinalMessage)
	}
	reqs := w.Model.Server.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	crashed, last := string(reqs[1].Body), string(reqs[2].Body)
	if !strings.Contains(crashed, `mcp server \"crashy\": tool \"crash\" failed: the connection to the server was lost`) {
		t.Errorf("the model did not read the crash:\n%.2000s", crashed)
	}
	if !strings.Contains(last, "echo: after the crash") {
		t.Errorf("the call after the crash did not reach a new server:\n%.2000s", last)
	}
}
