package appserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// An orchestrator's flow with its own tool and approvals: the thread
// declares a dynamic tool (experimentalApi); the model calls it and the
// orchestrator answers item/tool/call; the model runs a command that the
// "untrusted" policy asks about and the orchestrator accepts it
// (item/commandExecution/requestApproval); a continuation turn sees it
// all; the thread is named, archived and brought back.
func TestAppServerDynamicToolsAndApprovals(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "ABC-2", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "lookup_ticket", Arguments: json.RawMessage(`{"id":"ABC-2"}`)}}},
			{Shell: "touch approved-by-orchestrator"},
			{Text: "ticket handled"},
		}},
		{Match: "continue", Steps: []fakemodel.Step{{Text: "continued"}}},
		{Match: "after unarchive", Steps: []fakemodel.Step{{Text: "back again"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	tools := []any{map[string]any{"name": "lookup_ticket", "description": "Read a ticket from the tracker",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []string{"id"}}}}
	if e := a.CallErr("thread/start", map[string]any{"cwd": e.Work, "dynamicTools": []any{map[string]any{"name": "exec_command", "description": "mine"}}}); e["code"].(float64) != -32600 ||
		!strings.Contains(e["message"].(string), `dynamicTools[0].name "exec_command" is a tool of the codex harness`) {
		t.Fatalf("a dynamic tool named like the harness's own: %v", e)
	}
	res, _ := a.Call("thread/start", map[string]any{"approvalPolicy": "untrusted", "sandbox": "workspace-write", "cwd": e.Work, "dynamicTools": tools})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second) // thread/started
	res, _ = a.Call("turn/start", map[string]any{
		"threadId": id, "input": []any{map[string]any{"type": "text", "text": "Work on ABC-2"}},
		"cwd": e.Work, "title": "ABC-2", "approvalPolicy": "untrusted",
		"sandboxPolicy": map[string]any{"type": "workspaceWrite", "writableRoots": []string{e.Work}, "networkAccess": false},
	})
	turnID := res["turn"].(map[string]any)["id"].(string)

	var sawTool, sawApproval bool
	var notes []map[string]any
	for {
		m := a.Read(90 * time.Second)
		notes = append(notes, m)
		switch m["method"] {
		case "item/tool/call":
			p := e2etest.NoteParams(m)
			if p["tool"] != "lookup_ticket" || p["threadId"] != id || p["turnId"] != turnID || p["arguments"].(map[string]any)["id"] != "ABC-2" {
				t.Fatalf("item/tool/call %v", p)
			}
			sawTool = true
			a.Answer(m, map[string]any{"success": true, "contentItems": []any{map[string]any{"type": "inputText", "text": "ABC-2: the login page times out"}}})
		case "item/commandExecution/requestApproval":
			p := e2etest.NoteParams(m)
			if p["command"] != "touch approved-by-orchestrator" || p["cwd"] != e.Work || p["turnId"] != turnID {
				t.Fatalf("approval request %v", p)
			}
			sawApproval = true
			a.Answer(m, map[string]any{"decision": "accept"})
		}
		if m["method"] == "turn/completed" {
			break
		}
	}
	if !sawTool || !sawApproval {
		t.Fatalf("tool call asked %v, approval asked %v", sawTool, sawApproval)
	}
	if st := e2etest.NoteParams(e2etest.Last(notes))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn %v", st)
	}
	completed := itemsOf(notes, "item/completed")
	var types []string
	for _, it := range completed {
		types = append(types, it["type"].(string))
	}
	if strings.Join(types, ",") != "userMessage,dynamicToolCall,commandExecution,agentMessage" {
		t.Fatalf("completed items %v", types)
	}
	if dt := completed[1]; dt["status"] != "completed" || dt["success"] != true || dt["tool"] != "lookup_ticket" {
		t.Fatalf("dynamic tool item %v", dt)
	}
	if cmd := completed[2]; cmd["status"] != "completed" || cmd["exitCode"].(float64) != 0 {
		t.Fatalf("approved command %v", cmd)
	}
	if _, err := os.Stat(e.Work + "/approved-by-orchestrator"); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if req := e.Model.Server.RequestsContaining("the login page times out"); len(req) == 0 {
		t.Fatalf("the model never read the dynamic tool's answer")
	}

	// The continuation turn keeps the history; the tool stays offered.
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "continue with the docs"}}})
	if st := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("continuation turn %v", st)
	}
	req, _ := e.Model.Server.LastRequest()
	for _, want := range []string{"lookup_ticket", "the login page times out", "approved-by-orchestrator", "continue with the docs"} {
		if !strings.Contains(string(req.Body), want) {
			t.Errorf("the continuation's model call lacks %q", want)
		}
	}

	// Name, archive, unarchive: all durable (the name is read back by a
	// new process; the unarchived thread keeps its history and tools).
	_, notes = a.Call("thread/name/set", map[string]any{"threadId": id, "name": "ABC-2 login timeout"})
	a.Until("thread/name/updated", 30*time.Second)
	a.Call("thread/archive", map[string]any{"threadId": id})
	a.Until("thread/archived", 30*time.Second)
	// thread/list reads Temporal's visibility store, which takes in a
	// closed run a moment after it closed: wait for it (bounded).
	var list map[string]any
	listed := func(c *e2etest.AppServer, params map[string]any) func() bool {
		return func() bool {
			list, _ = c.Call("thread/list", params)
			data := list["data"].([]any)
			return len(data) == 1 && data[0].(map[string]any)["id"] == id
		}
	}
	e2etest.WaitUntil(t, listed(a, map[string]any{"archived": true}), 15*time.Second, "the archived thread in thread/list", func() string { return fmt.Sprint(list) })
	if list["data"].([]any)[0].(map[string]any)["name"] != "ABC-2 login timeout" {
		t.Fatalf("archived threads %v", list)
	}
	a.Kill()
	b := e.AppServer(e2etest.LoadSchema(t))
	b.Handshake()
	un, _ := b.Call("thread/unarchive", map[string]any{"threadId": id})
	if th := un["thread"].(map[string]any); th["id"] != id || th["name"] != "ABC-2 login timeout" {
		t.Fatalf("thread/unarchive %v", un)
	}
	b.Until("thread/unarchived", 30*time.Second)
	e2etest.WaitUntil(t, listed(b, map[string]any{}), 15*time.Second, "the unarchived thread among the open ones", func() string { return fmt.Sprint(list) })
	b.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "after unarchive: go on"}}})
	if st := e2etest.NoteParams(e2etest.Last(b.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn after unarchive %v", st)
	}
	req, _ = e.Model.Server.LastRequest()
	if !strings.Contains(string(req.Body), "continued") || !strings.Contains(string(req.Body), "lookup_ticket") {
		t.Errorf("the unarchived thread lost its history or its tools")
	}
	_ = notes
}

// The app-server is SIGKILLed while an approval waits; a new process
// resumes the thread and is asked again; its answer lets the turn finish.
func TestAppServerCrashWithPendingApprovalAsksAgain(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "touch after-the-crash"},
		{Text: "done after the crash"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	schema := e2etest.LoadSchema(t)
	a := e.AppServer(schema)
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "untrusted", "sandbox": "workspace-write"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "make the file"}}})
	first := e2etest.Last(a.Until("item/commandExecution/requestApproval", 90*time.Second))
	itemID := e2etest.NoteParams(first)["itemId"]
	a.Kill()

	b := e.AppServer(schema)
	b.Handshake()
	b.Call("thread/resume", map[string]any{"threadId": id})
	again := e2etest.Last(b.Until("item/commandExecution/requestApproval", 60*time.Second))
	if p := e2etest.NoteParams(again); p["itemId"] != itemID || p["command"] != "touch after-the-crash" {
		t.Fatalf("asked again: %v (first: %v)", p, e2etest.NoteParams(first))
	}
	b.Answer(again, map[string]any{"decision": "accept"})
	rest := b.Until("turn/completed", 90*time.Second)
	if st := e2etest.NoteParams(e2etest.Last(rest))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn %v", st)
	}
	for _, n := range rest {
		if n["method"] == "item/commandExecution/requestApproval" {
			t.Fatalf("asked twice: %v", n)
		}
	}
	if _, err := os.Stat(e.Work + "/after-the-crash"); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// Steering against the real workflows: input sent with turn/steer and
// with a turn/start while the turn runs reaches the model's next call;
// a stall timeout set by thread/start fails a turn that logs nothing.
func TestAppServerSteerAndStallTimeout(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "steer me", Steps: []fakemodel.Step{{DelayMs: 2500, Shell: "echo working"}, {Text: "steered turn done"}}},
		{Match: "stall", Steps: []fakemodel.Step{{DelayMs: 4000, Text: "too late"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never", "sandbox": "workspace-write"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second)
	res, _ = a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "steer me"}}})
	turnID := res["turn"].(map[string]any)["id"].(string)
	a.Until("turn/started", 30*time.Second)
	res, _ = a.Call("turn/steer", map[string]any{"threadId": id, "expectedTurnId": turnID, "input": []any{map[string]any{"type": "text", "text": "STEER-ONE"}}})
	if res["turnId"] != turnID {
		t.Fatalf("turn/steer %v", res)
	}
	res, _ = a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "STEER-TWO"}}})
	if res["turn"].(map[string]any)["id"] != turnID {
		t.Fatalf("turn/start while running %v", res)
	}
	notes := a.Until("turn/completed", 90*time.Second)
	if st := e2etest.NoteParams(e2etest.Last(notes))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("steered turn %v", st)
	}
	var users int
	for _, it := range itemsOf(a.Seen, "item/completed") {
		if it["type"] == "userMessage" {
			users++
		}
	}
	if users != 3 {
		t.Fatalf("%d userMessage items, want the prompt and two steers", users)
	}
	req := e.Model.Server.RequestsContaining("STEER-TWO")
	if len(req) == 0 || !strings.Contains(string(req[0].Body), "STEER-ONE") || !strings.Contains(string(req[0].Body), "working") {
		t.Fatalf("the model did not read the steered input after the command's output")
	}

	res, _ = a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never", "stallTimeoutMs": 1500})
	id2 := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second)
	a.Call("turn/start", map[string]any{"threadId": id2, "input": []any{map[string]any{"type": "text", "text": "stall here"}}})
	done := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)
	if done["status"] != "failed" || !strings.Contains(done["error"].(map[string]any)["message"].(string), "turn stalled: no event for 1.5s") {
		t.Fatalf("stalled turn %v", done)
	}
}

// request_user_input against the real workflows: the model asks, the
// orchestrator answers item/tool/requestUserInput, the model reads it.
func TestAppServerRequestUserInput(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{{Name: "request_user_input", Arguments: json.RawMessage(
			`{"questions":[{"id":"db","header":"Database","question":"Which database?","options":[{"label":"Postgres","description":"the default"},{"label":"SQLite","description":"embedded"}]}]}`)}}},
		{Text: "using the answer"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never", "requestUserInput": true})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "set up the app"}}})
	req := e2etest.Last(a.Until("item/tool/requestUserInput", 90*time.Second))
	q := e2etest.NoteParams(req)["questions"].([]any)[0].(map[string]any)
	if q["id"] != "db" || len(q["options"].([]any)) != 2 {
		t.Fatalf("requestUserInput %v", e2etest.NoteParams(req))
	}
	a.Answer(req, map[string]any{"answers": map[string]any{"db": map[string]any{"answers": []string{"SQLite"}}}})
	if st := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn %v", st)
	}
	if len(e.Model.Server.RequestsContaining("db: SQLite")) == 0 {
		t.Fatalf("the model never read the user's answer")
	}
}

// deltaWith is the first delta of one item by method that contains s.
func deltaWith(notes []map[string]any, method, itemID, s string) string {
	for _, n := range notes {
		if p := e2etest.NoteParams(n); n["method"] == method && p["itemId"] == itemID && strings.Contains(p["delta"].(string), s) {
			return p["delta"].(string)
		}
	}
	return ""
}
