package appserver

import (
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The calls Codex 0.171's TUI makes in a session, on the real backend:
// thread/turns/list and thread/items/list read the durable history,
// thread/compact/start runs the thread's compaction (the next turn sends
// the summary instead of the old transcript), and account/read and
// mcpServerStatus/list answer from the configuration.
func TestAppServerHistoryAndCompact(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "COMPACT-NOW", Steps: []fakemodel.Step{{Text: "SUMMARY-XYZ of the thread"}}},
		{Match: "alpha", Steps: []fakemodel.Step{{Shell: "echo turn-one-output"}, {Text: "first done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{Text: "second done"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t), "-c", `compact_prompt="COMPACT-NOW: summarize"`,
		"-c", `mcp_servers.old={command="true", enabled=false}`)
	a.Handshake()
	if r, _ := a.Call("account/read", map[string]any{}); r["account"] != nil {
		t.Fatalf("account/read for a provider without env_key: %v", r)
	}
	r, _ := a.Call("mcpServerStatus/list", map[string]any{})
	if data := r["data"].([]any); len(data) != 1 || data[0].(map[string]any)["name"] != "old" || data[0].(map[string]any)["runtimeStatus"] != "disabled" {
		t.Fatalf("mcpServerStatus/list: %v", r)
	}

	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "first prompt alpha"}}})
	if st := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("first turn %v", st)
	}

	turns, _ := a.Call("thread/turns/list", map[string]any{"threadId": id})
	if data := turns["data"].([]any); len(data) != 1 || data[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("thread/turns/list: %v", turns)
	}
	items, _ := a.Call("thread/items/list", map[string]any{"threadId": id})
	var types []string
	for _, it := range items["data"].([]any) {
		types = append(types, it.(map[string]any)["item"].(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "userMessage,commandExecution,agentMessage" {
		t.Fatalf("thread/items/list: %v", types)
	}

	if r, _ := a.Call("thread/compact/start", map[string]any{"threadId": id}); len(r) != 0 {
		t.Fatalf("thread/compact/start: %v", r)
	}
	// The compaction shows as a turn with one contextCompaction item.
	notes := a.Until("turn/completed", 30*time.Second)
	if it := itemsOf(notes, "item/completed"); len(it) != 1 || it[0]["type"] != "contextCompaction" {
		t.Fatalf("the compaction's items: %v", it)
	}
	if asked := e.Model.Server.RequestsContaining("COMPACT-NOW: summarize"); len(asked) != 1 {
		t.Fatalf("%d compaction requests, want 1", len(asked))
	}
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "second prompt beta"}}})
	a.Until("turn/completed", 90*time.Second)
	req, _ := e.Model.Server.LastRequest()
	if body := string(req.Body); !strings.Contains(body, "SUMMARY-XYZ") || strings.Contains(body, "turn-one-output") {
		t.Fatalf("the turn after compaction sent:\n%s", body)
	}
	if e := a.CallErr("thread/compact/start", map[string]any{"threadId": "no-such-thread"}); !strings.Contains(e["message"].(string), "no-such-thread") {
		t.Fatalf("compacting an unknown thread: %v", e)
	}
}
