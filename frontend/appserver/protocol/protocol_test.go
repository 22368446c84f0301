package protocol_test

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

func load(t *testing.T) *codexschema.Validator {
	t.Helper()
	v, err := codexschema.Load()
	if err != nil {
		t.Fatalf("loading the reference schemas: %v", err)
	}
	return v
}

func check(t *testing.T, v *codexschema.Validator, def string, value any) {
	t.Helper()
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(def, b); err != nil {
		t.Errorf("%s: %v\n%s", def, err, b)
	}
}

func ptr[T any](v T) *T { return &v }

// items are one of each item type, begun and finished.
func items() []protocol.ThreadItem {
	none := []protocol.DynamicContentItem{}
	return []protocol.ThreadItem{
		protocol.AgentMessageItem{ID: "a", Text: "hi"},
		protocol.ReasoningItem{ID: "r", Summary: []string{"think"}, Content: []string{}},
		protocol.CommandExecutionItem{ID: "c", Command: "ls", Cwd: "/w", Source: "agent", Status: protocol.StatusInProgress,
			CommandActions: protocol.UnknownCommand("ls")},
		protocol.CommandExecutionItem{ID: "c", Command: "ls", Cwd: "/w", ProcessID: ptr("7"), Source: "agent", Status: protocol.StatusCompleted,
			CommandActions: protocol.UnknownCommand("ls"), AggregatedOutput: ptr("x\n"), ExitCode: ptr(0), DurationMs: ptr(int64(5))},
		// An exec_command session's item, completed once its process is gone.
		protocol.CommandExecutionItem{ID: "c", Command: "sleep 9", Cwd: "/w", ProcessID: ptr("1000"), Source: "unifiedExecStartup",
			Status: protocol.StatusFailed, CommandActions: protocol.UnknownCommand("sleep 9"), AggregatedOutput: ptr("")},
		protocol.FileChangeItem{ID: "f", Status: protocol.StatusCompleted, Changes: []protocol.FileUpdateChange{
			{Path: "a", Kind: protocol.PatchChangeKind{Type: "add"}}, {Path: "b", Kind: protocol.PatchChangeKind{Type: "update"}}}},
		protocol.PlanItem{ID: "p", Text: "- [ ] one\n"},
		protocol.UserMessageItem{ID: "user_1", Content: []protocol.UserInput{protocol.Text("go"),
			protocol.ImageInput{URL: "data:image/png;base64,AA"}, protocol.LocalImageInput{Path: "/w/a.png"}}},
		protocol.McpToolCallItem{ID: "m", Server: "s", Tool: "t", Arguments: protocol.Arguments(`{"q":1}`), Status: protocol.StatusInProgress},
		protocol.McpToolCallItem{ID: "m", Server: "s", Tool: "t", Arguments: protocol.Arguments(`{}`), Status: protocol.StatusCompleted,
			Result: &protocol.McpToolCallResult{Content: []protocol.McpContent{{Type: "text", Text: "r"}}}, DurationMs: ptr(int64(3))},
		protocol.McpToolCallItem{ID: "m", Server: "s", Tool: "t", Arguments: protocol.Arguments(`{}`), Status: protocol.StatusFailed,
			Error: &protocol.McpToolCallError{Message: "boom"}},
		protocol.DynamicToolCallItem{ID: "d", Tool: "t", Arguments: protocol.Arguments("not json"), Status: protocol.StatusInProgress},
		protocol.DynamicToolCallItem{ID: "d", Tool: "t", Namespace: ptr("ns"), Arguments: protocol.Arguments(`{}`), Status: protocol.StatusCompleted,
			ContentItems: &[]protocol.DynamicContentItem{protocol.InputText("ok"), protocol.InputImage("https://x/y.png")}, Success: ptr(true), DurationMs: ptr(int64(1))},
		protocol.DynamicToolCallItem{ID: "d", Tool: "t", Arguments: protocol.Arguments(`{}`), Status: protocol.StatusFailed,
			ContentItems: &none, Success: ptr(false), DurationMs: ptr(int64(1))},
		protocol.CollabAgentToolCallItem{ID: "x", Tool: "spawnAgent", Status: protocol.StatusCompleted, SenderThreadID: "root",
			ReceiverThreadIDs: []string{"kid"}, Prompt: ptr("look"), AgentsStates: map[string]protocol.CollabAgentState{
				"kid": {Status: "running"}}},
		protocol.ContextCompactionItem{ID: "k"},
	}
}

// Every item type satisfies every release's ThreadItem, and marshals
// with its type first.
func TestItemsMatchEveryRelease(t *testing.T) {
	v := load(t)
	for _, it := range items() {
		check(t, v, "v2/ThreadItem", it)
		b, _ := json.Marshal(it)
		want := `{"type":"` + it.ItemType() + `"`
		if string(b[:len(want)]) != want {
			t.Errorf("%s does not begin with its type: %s", it.ItemType(), b)
		}
	}
}

// Every notification satisfies every release's ServerNotification.
func TestNotificationsMatchEveryRelease(t *testing.T) {
	v := load(t)
	th := protocol.Thread{ID: "t", SessionID: "t", Status: protocol.StatusIdle, Cwd: "/w", CLIVersion: "0.1.0", Turns: []protocol.Turn{}}
	kid := th
	kid.Source = protocol.SessionSource{SubAgent: &protocol.ThreadSpawn{ParentThreadID: "t", Depth: 1, AgentNickname: ptr("Ada")}}
	turn := protocol.Turn{ID: "t/turn-1", Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: protocol.TurnStatusInProgress}
	done := turn
	done.Status, done.Error = protocol.TurnStatusFailed, &protocol.TurnError{Message: "no"}
	retry := &protocol.TurnError{Message: "retrying", AdditionalDetails: ptr("down"),
		CodexErrorInfo: protocol.CodexErrorInfo{Kind: protocol.ErrorHTTPConnectionFailed, HTTPStatusCode: ptr(503)}}
	notes := []protocol.Notification{
		protocol.ThreadStarted{Thread: th},
		protocol.ThreadStarted{Thread: kid},
		protocol.ThreadStatusChanged{ThreadID: "t", Status: protocol.StatusActive()},
		protocol.ThreadNameUpdated{ThreadID: "t"},
		protocol.ThreadArchived{ThreadID: "t"},
		protocol.ThreadUnarchived{ThreadID: "t"},
		protocol.ThreadTokenUsageUpdated{ThreadID: "t", TurnID: "t/turn-1"},
		protocol.TurnStarted{ThreadID: "t", Turn: turn},
		protocol.TurnCompleted{ThreadID: "t", Turn: done},
		protocol.TurnPlanUpdated{ThreadID: "t", TurnID: "t/turn-1", Plan: []protocol.PlanStep{{Step: "one", Status: "pending"}}},
		protocol.AgentMessageDelta("t", "t/turn-1", "a", "hi"),
		protocol.CommandOutputDelta("t", "t/turn-1", "c", "x"),
		protocol.ReasoningSummaryPartAdded{ThreadID: "t", TurnID: "t/turn-1", ItemID: "r"},
		protocol.ReasoningSummaryTextDelta{ThreadID: "t", TurnID: "t/turn-1", ItemID: "r", Delta: "d"},
		protocol.TerminalInteraction{ThreadID: "t", TurnID: "t/turn-1", ItemID: "c", ProcessID: "7", Stdin: "y\n"},
		protocol.ServerRequestResolved{ThreadID: "t", RequestID: 3},
		protocol.CommandExecOutputDelta{ProcessID: "p", Stream: "stdout", DeltaBase64: "eA=="},
		protocol.ErrorNotification{ThreadID: "t", TurnID: "t/turn-1", Error: retry, WillRetry: true},
		protocol.Warning{Message: "careful"},
	}
	for _, it := range items() {
		notes = append(notes, protocol.ItemStarted{ThreadID: "t", TurnID: "t/turn-1", Item: it, StartedAtMs: 1},
			protocol.ItemCompleted{ThreadID: "t", TurnID: "t/turn-1", Item: it, CompletedAtMs: 2})
	}
	for _, n := range notes {
		check(t, v, "ServerNotification", map[string]any{"method": n.Method(), "params": n})
	}
}

// The requests the server makes satisfy every release's ServerRequest.
func TestServerRequestsMatchEveryRelease(t *testing.T) {
	v := load(t)
	for method, params := range map[string]any{
		protocol.MethodCommandApproval: protocol.CommandExecutionRequestApprovalParams{ThreadID: "t", TurnID: "u", ItemID: "i",
			Command: "ls", CommandActions: protocol.UnknownCommand("ls")},
		protocol.MethodFileChangeApproval: protocol.FileChangeRequestApprovalParams{ThreadID: "t", TurnID: "u", ItemID: "i"},
		protocol.MethodToolCall:           protocol.DynamicToolCallParams{ThreadID: "t", TurnID: "u", CallID: "c", Tool: "x", Arguments: protocol.Arguments(`{}`)},
		protocol.MethodRequestUserInput: protocol.ToolRequestUserInputParams{ThreadID: "t", TurnID: "u", ItemID: "i", IsBlocking: true,
			Questions: []protocol.ToolRequestUserInputItem{{ID: "q1", Header: "h", Question: "why?", IsOther: true,
				Options: []protocol.ToolRequestUserInputOption{{Label: "a", Description: "b"}}}}},
	} {
		check(t, v, "ServerRequest", map[string]any{"id": 1, "method": method, "params": params})
	}
}

// The responses satisfy every release's definition of them.
func TestResponsesMatchEveryRelease(t *testing.T) {
	v := load(t)
	th := protocol.Thread{ID: "t", SessionID: "t", Status: protocol.StatusNotLoaded, Turns: []protocol.Turn{}}
	start := protocol.ThreadStartResponse{Thread: th, InstructionSources: []string{}, ApprovalPolicy: "never",
		ApprovalsReviewer: "user", Sandbox: protocol.WorkspaceWrite([]string{"/w"})}
	check(t, v, "v2/ThreadStartResponse", start)
	start.Sandbox = protocol.ReadOnly()
	check(t, v, "v2/ThreadResumeResponse", start)
	start.Sandbox = protocol.DangerFullAccess()
	check(t, v, "v2/ThreadForkResponse", start)
	check(t, v, "v2/ThreadReadResponse", protocol.ThreadResponse{Thread: th})
	check(t, v, "InitializeResponse", protocol.InitializeResponse{UserAgent: "x", CodexHome: "/h", PlatformFamily: "unix", PlatformOs: "linux"})
	check(t, v, "v2/GetAccountResponse", protocol.GetAccountResponse{Account: &protocol.Account{Type: "apiKey"}})
	check(t, v, "v2/ConfigRequirementsReadResponse", protocol.ConfigRequirementsReadResponse{})
	check(t, v, "v2/ConfigReadResponse", protocol.ConfigReadResponse{Config: map[string]int{}, Origins: map[string]json.RawMessage{}})
	check(t, v, "v2/ListMcpServerStatusResponse", protocol.Page[protocol.McpServerStatus]{Data: []protocol.McpServerStatus{{Name: "docs",
		AuthStatus: "unsupported", Tools: map[string]json.RawMessage{}, Resources: []json.RawMessage{}, ResourceTemplates: []json.RawMessage{}}}})
	check(t, v, "v2/SkillsListResponse", protocol.List[protocol.SkillsListEntry]{Data: []protocol.SkillsListEntry{{Cwd: "/w",
		Skills: []protocol.SkillMetadata{{Name: "s", Description: "d", Path: "/w/SKILL.md", Scope: "repo", Enabled: true}},
		Errors: []protocol.SkillErrorInfo{}}}})
	check(t, v, "v2/ModelListResponse", protocol.Page[protocol.Model]{Data: []protocol.Model{{ID: "m", Model: "m", DisplayName: "m",
		DefaultReasoningEffort: "medium", SupportedReasoningEfforts: []protocol.ReasoningEffortOption{{ReasoningEffort: "medium", Description: "d"}},
		InputModalities: []string{"text"}}}})
	check(t, v, "v2/ThreadTurnsListResponse", protocol.HistoryPage[protocol.Turn]{Data: []protocol.Turn{}})
	check(t, v, "v2/ThreadItemsListResponse", protocol.HistoryPage[protocol.TurnItem]{Data: []protocol.TurnItem{{TurnID: "u", Item: items()[0]}}})
	check(t, v, "v2/ThreadUnsubscribeResponse", protocol.ThreadUnsubscribeResponse{Status: "unsubscribed"})
	check(t, v, "v2/CommandExecResponse", protocol.CommandExecResponse{})
	check(t, v, "v2/ThreadGoalGetResponse", protocol.ThreadGoalGetResponse{})
	check(t, v, "v2/PluginInstalledResponse", protocol.PluginInstalledResponse{Marketplaces: []json.RawMessage{}, MarketplaceLoadErrors: []json.RawMessage{}})
}
