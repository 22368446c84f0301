package appserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

func (c *testClient) initializeExperimental() {
	c.t.Helper()
	c.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true}})
	c.sendRaw(`{"method":"initialized"}`)
}

// answer responds to a request of the server.
func (c *testClient) answer(req map[string]any, result any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"id": req["id"], "result": result})
	c.sendRaw(string(b))
}

// startedTurn starts a thread and a turn on the fake and returns their ids
// once the turn's first notifications are read.
func startedTurn(t *testing.T, c *testClient, threadParams map[string]any) (string, string) {
	t.Helper()
	th := c.call("thread/start", threadParams)["thread"].(map[string]any)
	c.read() // thread/started
	id := th["id"].(string)
	res, _ := c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	c.until("item/completed") // the user message
	return id, turnID
}

func commandItem(id, command string) *workflows.Item {
	return &workflows.Item{ID: id, Type: workflows.ItemCommandExecution, Command: command, Cwd: "/work", Status: workflows.StatusInProgress}
}

// Approvals are asked with item/commandExecution/requestApproval and
// item/fileChange/requestApproval after the item's item/started; the
// client's decision reaches the turn; an error or an unknown answer
// declines.
func TestApprovalsAreAskedAndDecided(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	threadID, turnID := startedTurn(t, c, map[string]any{})
	requested := time.Unix(1_800_000_050, 0)

	b.requestApproval(turnID, workflows.Approval{Kind: "command", Command: "make build", Cwd: "/work", Reason: "untrusted policy", RequestedAt: requested},
		commandItem("item_0", "make build"))
	got := c.until("item/commandExecution/requestApproval")
	if methods(got)[0] != "item/started" || params(got[0])["item"].(map[string]any)["id"] != "item_0" {
		t.Fatalf("the item did not start before the approval request: %v", methods(got))
	}
	req := got[len(got)-1]
	p := params(req)
	if p["threadId"] != threadID || p["turnId"] != turnID || p["itemId"] != "item_0" || p["command"] != "make build" ||
		p["cwd"] != "/work" || p["reason"] != "untrusted policy" || p["startedAtMs"].(float64) != float64(requested.UnixMilli()) {
		t.Fatalf("approval request %v", p)
	}
	c.answer(req, map[string]any{"decision": "acceptForSession"})
	resolved := c.until("serverRequest/resolved")
	if rp := params(resolved[len(resolved)-1]); jsonID(rp["requestId"]) != jsonID(req["id"]) || rp["threadId"] != threadID {
		t.Fatalf("serverRequest/resolved %v for request %v", rp, req["id"])
	}

	cases := []struct {
		kind, answer, want string
	}{
		{"patch", `{"decision":"cancel"}`, workflows.DecisionAbort},
		{"command", `{"decision":"decline"}`, workflows.DecisionDeny},
		{"command", `{"decision":"accept"}`, workflows.DecisionApprove},
		{"command", `{"decision":{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["make"]}}}`, workflows.DecisionApproveForSession},
		{"command", `{"decision":"maybe later"}`, workflows.DecisionDeny},
		{"command", `error`, workflows.DecisionDeny},
	}
	for i, tc := range cases {
		item := commandItem(fmt.Sprintf("item_%d", i+1), "make test")
		if tc.kind == "patch" {
			item = &workflows.Item{ID: item.ID, Type: workflows.ItemFileChange, Status: workflows.StatusInProgress, Changes: []workflows.FileChange{{Path: "/etc/x", Kind: "update"}}}
		}
		b.requestApproval(turnID, workflows.Approval{Kind: tc.kind, Command: "make test", Cwd: "/work", Diff: "--- a\n+++ b\n", Reason: "outside the roots", RequestedAt: requested}, item)
		want := "item/commandExecution/requestApproval"
		if tc.kind == "patch" {
			want = "item/fileChange/requestApproval"
		}
		req := last(c.until(want))
		if params(req)["itemId"] != item.ID {
			t.Fatalf("case %d: request %v", i, req)
		}
		if tc.answer == "error" {
			c.sendRaw(fmt.Sprintf(`{"id":%s,"error":{"code":-32000,"message":"the user closed the window"}}`, jsonID(req["id"])))
		} else {
			c.sendRaw(fmt.Sprintf(`{"id":%s,"result":%s}`, jsonID(req["id"]), tc.answer))
		}
		c.until("serverRequest/resolved")
		b.mu.Lock()
		d := b.decisions[len(b.decisions)-1]
		b.mu.Unlock()
		if d.ItemID != item.ID || d.ThreadID != threadID || d.Decision != tc.want {
			t.Fatalf("case %d (%s): decision %+v, want %s", i, tc.answer, d, tc.want)
		}
	}
	b.mu.Lock()
	first := b.decisions[0]
	b.mu.Unlock()
	if first.Decision != workflows.DecisionApproveForSession {
		t.Fatalf("first decision %+v", first)
	}
}

// An approval resolved without this client (another client, a timeout)
// ends the question: serverRequest/resolved, and a late answer changes
// nothing.
func TestApprovalSettledElsewhere(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	_, turnID := startedTurn(t, c, map[string]any{})
	b.requestApproval(turnID, workflows.Approval{Kind: "command", Command: "rm -rf build", Cwd: "/work"}, commandItem("item_0", "rm -rf build"))
	req := last(c.until("item/commandExecution/requestApproval"))
	b.resolveApproval(turnID, "item_0", workflows.DecisionDeny)
	rp := params(last(c.until("serverRequest/resolved")))
	if jsonID(rp["requestId"]) != jsonID(req["id"]) {
		t.Fatalf("resolved %v for %v", rp, req["id"])
	}
	c.answer(req, map[string]any{"decision": "accept"})
	if w := c.read(); w["method"] != "warning" {
		t.Fatalf("a late answer: %v", w)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.decisions) != 0 {
		t.Fatalf("a settled approval was decided again: %v", b.decisions)
	}
}

// A server that dies with an approval open leaves it pending in the turn;
// the next server asks it again after thread/resume, and never asks one
// that was resolved meanwhile.
func TestNewServerAsksPendingApprovalsAgain(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initializeExperimental()
	threadID, turnID := startedTurn(t, c, map[string]any{"dynamicTools": []any{map[string]any{"name": "lookup", "description": "d", "inputSchema": map[string]any{"type": "object"}}}})
	b.requestApproval(turnID, workflows.Approval{Kind: "command", Command: "make a", Cwd: "/work"}, commandItem("item_0", "make a"))
	b.requestApproval(turnID, workflows.Approval{Kind: "command", Command: "make b", Cwd: "/work"}, commandItem("item_1", "make b"))
	b.callDynamic(turnID, "item_2", "lookup", `{"q":"x"}`)
	c.until("item/tool/call")
	c.close()
	b.resolveApproval(turnID, "item_0", workflows.DecisionDeny) // answered elsewhere

	c2 := startClient(t, b)
	c2.initializeExperimental()
	res, _ := c2.response(c2.request("thread/resume", map[string]any{"threadId": threadID}))
	if res["error"] != nil {
		t.Fatalf("thread/resume: %v", res)
	}
	var asked []string
	resolved := 0
	for len(asked) < 2 || resolved < 2 {
		m := c2.read()
		switch m["method"] {
		case "serverRequest/resolved":
			resolved++
		case "item/commandExecution/requestApproval":
			asked = append(asked, params(m)["itemId"].(string))
			c2.answer(m, map[string]any{"decision": "accept"})
		case "item/tool/call":
			asked = append(asked, "tool:"+params(m)["callId"].(string))
			if params(m)["arguments"].(map[string]any)["q"] != "x" {
				t.Fatalf("item/tool/call %v", m)
			}
			c2.answer(m, map[string]any{"contentItems": []any{map[string]any{"type": "inputText", "text": "found"}}, "success": true})
		}
	}
	if strings.Join(sorted(asked), ",") != "item_1,tool:call-item_2" {
		t.Fatalf("asked again: %v", asked)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.decisions) != 1 || b.decisions[0].ItemID != "item_1" || b.decisions[0].Decision != workflows.DecisionApprove {
		t.Fatalf("decisions %v", b.decisions)
	}
	if len(b.answers) != 1 || !b.answers[0].Success || b.answers[0].Content[0].Text != "found" {
		t.Fatalf("answers %v", b.answers)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// Dynamic tools: gated by experimentalApi, checked, kept in the thread's
// config; a call goes to the client as item/tool/call between the
// dynamicToolCall item's item/started and item/completed; a client error
// is a failed result.
func TestDynamicTools(t *testing.T) {
	b := newFakeBackend()
	plain := startClient(t, b)
	plain.initialize()
	tools := []any{map[string]any{"name": "lookup_ticket", "description": "Look a ticket up", "namespace": "tracker",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}}}}
	wantError(t, plain.callErr("thread/start", map[string]any{"dynamicTools": tools}), -32600, "thread/start.dynamicTools requires experimentalApi capability")

	c := startClient(t, b)
	c.initializeExperimental()
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": []any{map[string]any{"description": "x"}}}), -32600, "missing field `name` in `dynamicTools[0]`")
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": []any{map[string]any{"name": "a b"}}}), -32600, "dynamicTools[0].name")
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}), -32600, "declared twice")
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": "lookup"}), -32600, "`dynamicTools`")

	threadID, turnID := startedTurn(t, c, map[string]any{"dynamicTools": tools})
	b.mu.Lock()
	cfg := b.threads[threadID].view.Config
	b.mu.Unlock()
	if len(cfg.DynamicTools) != 1 || cfg.DynamicTools[0].Name != "lookup_ticket" || cfg.DynamicTools[0].Source != "dynamic" ||
		cfg.DynamicTools[0].Server != "tracker" || cfg.DynamicTools[0].Parameters["type"] != "object" {
		t.Fatalf("thread config's dynamic tools %+v", cfg.DynamicTools)
	}
	wantError(t, c.callErr("thread/resume", map[string]any{"threadId": threadID, "dynamicTools": tools}), -32600, "declared by thread/start")

	b.callDynamic(turnID, "item_0", "lookup_ticket", `{"id":"ABC-1"}`)
	got := c.until("item/tool/call")
	started := params(got[0])["item"].(map[string]any)
	if got[0]["method"] != "item/started" || started["type"] != "dynamicToolCall" || started["status"] != "inProgress" || started["tool"] != "lookup_ticket" {
		t.Fatalf("before item/tool/call: %v", got)
	}
	req := last(got)
	p := params(req)
	if p["threadId"] != threadID || p["turnId"] != turnID || p["callId"] != "call-item_0" || p["tool"] != "lookup_ticket" ||
		p["arguments"].(map[string]any)["id"] != "ABC-1" {
		t.Fatalf("item/tool/call %v", p)
	}
	c.answer(req, map[string]any{"contentItems": []any{map[string]any{"type": "inputText", "text": "ABC-1: open"}}, "success": true})
	got = c.until("item/completed")
	done := params(last(got))["item"].(map[string]any)
	if done["type"] != "dynamicToolCall" || done["status"] != "completed" || done["success"] != true ||
		done["contentItems"].([]any)[0].(map[string]any)["text"] != "ABC-1: open" {
		t.Fatalf("completed dynamic tool call %v", done)
	}

	// A client error, then an unreadable answer: failed results.
	b.callDynamic(turnID, "item_1", "lookup_ticket", `{}`)
	req = last(c.until("item/tool/call"))
	c.sendRaw(fmt.Sprintf(`{"id":%s,"error":{"code":-32601,"message":"no such tool here"}}`, jsonID(req["id"])))
	done = params(last(c.until("item/completed")))["item"].(map[string]any)
	if done["status"] != "failed" || done["success"] != false {
		t.Fatalf("dynamic call answered with an error: %v", done)
	}
	b.callDynamic(turnID, "item_2", "lookup_ticket", `{}`)
	req = last(c.until("item/tool/call"))
	c.answer(req, map[string]any{"text": "not the shape"})
	c.until("item/completed")
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.answers) != 3 || !strings.Contains(b.answers[1].Error, "no such tool here") || !strings.Contains(b.answers[2].Error, "not a tool result") {
		t.Fatalf("answers %+v", b.answers)
	}
}

// turn/steer adds input to the running turn; turn/start while a turn runs
// does the same and answers with the running turn.
func TestSteering(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	th := c.call("thread/start", map[string]any{})["thread"].(map[string]any)
	c.read()
	id := th["id"].(string)
	input := []any{map[string]any{"type": "text", "text": "also fix the docs"}}
	wantError(t, c.callErr("turn/steer", map[string]any{"threadId": id, "input": input, "expectedTurnId": "x"}), -32600, "no active turn to steer")
	wantError(t, c.callErr("turn/steer", map[string]any{"threadId": "nope", "input": input, "expectedTurnId": "x"}), -32600, "thread not found: nope")
	wantError(t, c.callErr("turn/steer", map[string]any{"threadId": id, "input": input}), -32600, "missing field `expectedTurnId`")

	res, _ := c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	c.until("item/completed")
	wantError(t, c.callErr("turn/steer", map[string]any{"threadId": id, "input": input, "expectedTurnId": "other"}), -32600,
		fmt.Sprintf("expected active turn id `other` but found `%s`", turnID))

	res, notes := c.response(c.request("turn/steer", map[string]any{"threadId": id, "input": input, "expectedTurnId": turnID}))
	if res["result"].(map[string]any)["turnId"] != turnID {
		t.Fatalf("turn/steer %v", res)
	}
	if len(notes) < 2 {
		notes = append(notes, c.until("item/completed")...)
	}
	var user map[string]any
	for _, n := range notes {
		if n["method"] == "item/completed" {
			user = params(n)["item"].(map[string]any)
		}
	}
	if user["type"] != "userMessage" || user["content"].([]any)[0].(map[string]any)["text"] != "also fix the docs" {
		t.Fatalf("steered input item %v", user)
	}

	res, notes = c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "and the tests"}}, "model": "later-model", "stallTimeoutMs": 5000}))
	if got := res["result"].(map[string]any)["turn"].(map[string]any); got["id"] != turnID || got["status"] != "inProgress" {
		t.Fatalf("turn/start while running %v", res)
	}
	if len(notes) < 2 {
		c.until("item/completed")
	}
	b.mu.Lock()
	steers := append([]string(nil), b.steers...)
	b.mu.Unlock()
	if strings.Join(steers, "|") != "also fix the docs|and the tests" {
		t.Fatalf("steers %v", steers)
	}
	b.end(turnID, workflows.StatusCompleted, "")
	c.until("turn/completed")
	// The overrides of the steering turn/start apply to the next turn.
	c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "next"}}}))
	b.mu.Lock()
	model := b.threads[id].view.Config.Model
	b.mu.Unlock()
	if model != "later-model" {
		t.Fatalf("the next turn's model %q", model)
	}
	b.mu.Lock()
	o := b.requests[len(b.requests)-1].Timeouts
	b.mu.Unlock()
	if o == nil || o.Stall == nil || *o.Stall != 5*time.Second {
		t.Fatalf("the next turn's timeouts %+v", o)
	}
}

// thread/name/set, thread/archive, thread/unarchive.
func TestThreadNameAndArchive(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	th := c.call("thread/start", map[string]any{})["thread"].(map[string]any)
	c.read()
	id := th["id"].(string)
	wantError(t, c.callErr("thread/name/set", map[string]any{"threadId": "nope", "name": "x"}), -32600, "thread not found: nope")
	wantError(t, c.callErr("thread/name/set", map[string]any{"threadId": id}), -32600, "missing field `name`")
	res, notes := c.response(c.request("thread/name/set", map[string]any{"threadId": id, "name": "Fix ABC-1"}))
	if res["error"] != nil {
		t.Fatalf("thread/name/set %v", res)
	}
	if n := append(notes, c.read()); last(n)["method"] != "thread/name/updated" || params(last(n))["threadName"] != "Fix ABC-1" {
		t.Fatalf("thread/name/updated %v", n)
	}
	if got := c.call("thread/read", map[string]any{"threadId": id})["thread"].(map[string]any)["name"]; got != "Fix ABC-1" {
		t.Fatalf("thread/read name %v", got)
	}
	if got := c.call("thread/list", map[string]any{})["data"].([]any)[0].(map[string]any)["name"]; got != "Fix ABC-1" {
		t.Fatalf("thread/list name %v", got)
	}

	res, _ = c.response(c.request("thread/archive", map[string]any{"threadId": id}))
	if res["error"] != nil {
		t.Fatalf("thread/archive %v", res)
	}
	if n := c.read(); n["method"] != "thread/archived" || params(n)["threadId"] != id {
		t.Fatalf("thread/archived %v", n)
	}
	if data := c.call("thread/list", map[string]any{})["data"].([]any); len(data) != 0 {
		t.Fatalf("an archived thread is listed: %v", data)
	}
	if data := c.call("thread/list", map[string]any{"archived": true})["data"].([]any); len(data) != 1 {
		t.Fatalf("archived threads: %v", data)
	}
	wantError(t, c.callErr("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "x"}}}), -32600, "is archived")
	wantError(t, c.callErr("thread/name/set", map[string]any{"threadId": id, "name": "y"}), -32600, "is archived")

	res, _ = c.response(c.request("thread/unarchive", map[string]any{"threadId": id}))
	if got := res["result"].(map[string]any)["thread"].(map[string]any); got["id"] != id || got["name"] != "Fix ABC-1" {
		t.Fatalf("thread/unarchive %v", res)
	}
	if n := c.read(); n["method"] != "thread/unarchived" {
		t.Fatalf("thread/unarchived %v", n)
	}
	wantError(t, c.callErr("thread/unarchive", map[string]any{"threadId": id}), -32600, "is not archived")
	res, _ = c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "again"}}}))
	turnID := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	c.until("item/completed")
	wantError(t, c.callErr("thread/archive", map[string]any{"threadId": id}), -32600, "is running turn")
	b.end(turnID, workflows.StatusCompleted, "")
	c.until("turn/completed")
}

func last(ms []map[string]any) map[string]any { return ms[len(ms)-1] }

// requestUserInput: the model's request_user_input call is asked with
// item/tool/requestUserInput and the answers come back as its result.
func TestRequestUserInput(t *testing.T) {
	b := newFakeBackend()
	plain := startClient(t, b)
	plain.initialize()
	wantError(t, plain.callErr("thread/start", map[string]any{"requestUserInput": true}), -32600, "requestUserInput requires experimentalApi capability")

	c := startClient(t, b)
	c.initializeExperimental()
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": []any{map[string]any{"name": "x", "namespace": "interpreter"}}}), -32600, "reserved")
	threadID, turnID := startedTurn(t, c, map[string]any{"requestUserInput": true})
	b.mu.Lock()
	tools := b.threads[threadID].view.Config.DynamicTools
	b.mu.Unlock()
	if len(tools) != 1 || tools[0].Name != "request_user_input" {
		t.Fatalf("offered tools %+v", tools)
	}
	b.callDynamic(turnID, "item_0", "request_user_input",
		`{"questions":[{"id":"db","header":"Database","question":"Which database?","options":[{"label":"Postgres","description":"the default"}]}]}`)
	req := last(c.until("item/tool/requestUserInput"))
	p := params(req)
	q := p["questions"].([]any)[0].(map[string]any)
	if p["itemId"] != "item_0" || p["turnId"] != turnID || q["id"] != "db" || q["question"] != "Which database?" {
		t.Fatalf("requestUserInput %v", p)
	}
	c.answer(req, map[string]any{"answers": map[string]any{"db": map[string]any{"answers": []string{"Postgres"}}}})
	c.until("item/completed")

	b.callDynamic(turnID, "item_1", "request_user_input", `{"questions":[]}`)
	c.until("item/completed")
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.answers) != 2 || !b.answers[0].Success || b.answers[0].Content[0].Text != "db: Postgres" || !strings.Contains(b.answers[1].Error, "`questions` is empty") {
		t.Fatalf("answers %+v", b.answers)
	}
}

// Timeouts: thread/start's become config keys, turn/start's overrides
// for this and later turns.
func TestTimeoutParams(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	wantError(t, c.callErr("thread/start", map[string]any{"turnTimeoutMs": -1}), -32600, "`turnTimeoutMs` must not be negative")
	th := c.call("thread/start", map[string]any{"stallTimeoutMs": 30000, "turnTimeoutMs": 600000, "approvalTimeoutMs": 0, "config": map[string]any{"max_steps": 5}})["thread"].(map[string]any)
	c.read()
	b.mu.Lock()
	cfg := b.settings[len(b.settings)-1].Config
	b.mu.Unlock()
	if cfg["stall_timeout"] != "30000ms" || cfg["turn_timeout"] != "600000ms" || cfg["approvals.timeout"] != "0ms" || cfg["max_steps"] != float64(5) {
		t.Fatalf("config keys %v", cfg)
	}
	c.response(c.request("turn/start", map[string]any{"threadId": th["id"], "input": []any{map[string]any{"type": "text", "text": "x"}}, "stallTimeoutMs": -1}))
	b.mu.Lock()
	o := b.requests[len(b.requests)-1].Timeouts
	b.mu.Unlock()
	if o == nil || o.Stall == nil || *o.Stall != -time.Millisecond || o.Turn != nil {
		t.Fatalf("turn timeouts %+v", o)
	}
}
