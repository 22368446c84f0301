package appserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

func TestHandshake(t *testing.T) {
	c := startClient(t, newFakeBackend())
	wantError(t, c.callErr("thread/start", map[string]any{}), -32600, "Not initialized")

	res := c.call("initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "symphony", "version": "1.0", "title": nil},
		"capabilities": map[string]any{"experimentalApi": true, "optOutNotificationMethods": []string{"thread/started"}},
		"title":        "an extra key the protocol does not name",
	})
	for _, k := range []string{"userAgent", "codexHome", "platformFamily", "platformOs"} {
		if res[k] == "" || res[k] == nil {
			t.Errorf("initialize result lacks %s: %v", k, res)
		}
	}
	if !strings.HasPrefix(res["userAgent"].(string), "symphony/") {
		t.Errorf("userAgent %q does not name the client", res["userAgent"])
	}
	c.sendRaw(`{"method":"initialized","params":{}}`)
	wantError(t, c.callErr("initialize", map[string]any{"clientInfo": map[string]any{"name": "x", "version": "1"}}), -32600, "Already initialized")

	// A request id may be used again once its response has arrived.
	c.requestWithID("7", "thread/list", map[string]any{})
	if r, _ := c.response("7"); r["result"] == nil {
		t.Fatalf("thread/list: %v", r)
	}
	c.requestWithID("7", "thread/list", map[string]any{})
	if r, _ := c.response("7"); r["result"] == nil {
		t.Fatalf("thread/list with a reused id: %v", r)
	}
	// String ids work too.
	c.requestWithID(`"abc"`, "thread/list", nil)
	if r, _ := c.response(`"abc"`); r["result"] == nil {
		t.Fatalf("thread/list without params: %v", r)
	}
	// Opted out: no thread/started.
	c.call("thread/start", map[string]any{})
	c.requestWithID("99", "thread/list", map[string]any{})
	if _, notes := c.response("99"); len(notes) != 0 {
		t.Fatalf("opted-out notifications were sent: %v", notes)
	}
}

func TestBadInputIsAnsweredAndServingGoesOn(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()

	c.sendRaw(`{"id": 1, "method": "thread/start", `)
	e := c.read()
	if e["id"] != nil || int(e["error"].(map[string]any)["code"].(float64)) != -32700 {
		t.Fatalf("malformed line: %v", e)
	}
	wantError(t, c.callErr("thread/fly", map[string]any{}), -32600, "unknown method `thread/fly`")
	wantError(t, c.callErr("turn/start", map[string]any{"threadId": 5, "input": []any{}}), -32600, "`threadId`")
	wantError(t, c.callErr("turn/start", map[string]any{"input": []any{}}), -32600, "missing field `threadId`")
	wantError(t, c.callErr("turn/start", map[string]any{"threadId": "x"}), -32600, "missing field `input`")
	wantError(t, c.callErr("turn/start", nil), -32600, "missing field `params`")
	wantError(t, c.callErr("thread/read", map[string]any{"threadId": "no-such"}), -32600, "thread not found: no-such")
	wantError(t, c.callErr("thread/resume", map[string]any{"threadId": "no-such"}), -32600, "thread not found: no-such")
	wantError(t, c.callErr("turn/start", map[string]any{"threadId": "no-such", "input": []any{map[string]any{"type": "text", "text": "hi"}}}),
		-32600, "thread not found: no-such")
	wantError(t, c.callErr("turn/interrupt", map[string]any{"threadId": "no-such", "turnId": "t"}), -32600, "thread not found: no-such")
	wantError(t, c.callErr("thread/start", map[string]any{"sandbox": "yolo"}), -32600, "`sandbox`")
	wantError(t, c.callErr("thread/start", map[string]any{"modelProvider": "nope"}), -32600, "unknown model provider")
	wantError(t, c.callErr("thread/start", map[string]any{"approvalPolicy": map[string]any{"granular": map[string]any{}}}), -32600, "granular")

	th := c.call("thread/start", map[string]any{})["thread"].(map[string]any)
	c.read() // thread/started
	big := strings.Repeat("x", workflows.MaxInputChars+1)
	e = c.callErr("turn/start", map[string]any{"threadId": th["id"], "input": []any{map[string]any{"type": "text", "text": big}}})
	wantError(t, e, -32602, "Input exceeds the maximum length of 1048576 characters.")
	if d := e["data"].(map[string]any); d["input_error_code"] != "input_too_large" {
		t.Fatalf("data %v", d)
	}
	// Fewer characters, but more than the payload may carry once encoded
	// ('<' is six bytes as JSON).
	e = c.callErr("turn/start", map[string]any{"threadId": th["id"], "input": []any{map[string]any{"type": "text", "text": strings.Repeat("<", 300_000)}}})
	wantError(t, e, -32602, "Input exceeds the maximum size of 1572864 bytes")
	wantError(t, c.callErr("thread/start", map[string]any{"baseInstructions": big}), -32602,
		"thread/start.baseInstructions exceeds the maximum length of 1048576 characters.")
	wantError(t, c.callErr("turn/start", map[string]any{"threadId": th["id"], "input": []any{map[string]any{"type": "audio"}}}), -32600, "audio")
	wantError(t, c.callErr("turn/interrupt", map[string]any{"threadId": th["id"], "turnId": "t"}), -32600, "no active turn to interrupt")

	// A line over the size limit: answered (to its id, read from its
	// first bytes), and the next line is served.
	huge := fmt.Sprintf(`{"id":42,"method":"turn/start","params":{"threadId":"x","input":[{"type":"text","text":"%s"}]}}`, strings.Repeat("y", MaxLineBytes))
	c.sendRaw(huge)
	e = c.read()
	if jsonID(e["id"]) != "42" || int(e["error"].(map[string]any)["code"].(float64)) != -32602 {
		t.Fatalf("over-long line: %v", e)
	}
	// A response to a request the server never made.
	c.sendRaw(`{"id": 12, "result": {}}`)
	if w := c.read(); w["method"] != "warning" || !strings.Contains(params(w)["message"].(string), "12") {
		t.Fatalf("stray response: %v", w)
	}
	c.sendRaw(`[1,2]`)
	if e := c.read(); int(e["error"].(map[string]any)["code"].(float64)) != -32600 {
		t.Fatalf("batch: %v", e)
	}
	// Still serving.
	c.call("thread/list", map[string]any{})
}

// An orchestrator's flow: start a thread, run a turn, read its events,
// run a continuation turn on the same thread.
func TestThreadAndTurns(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()

	res := c.call("thread/start", map[string]any{"cwd": "/repo", "approvalPolicy": "never", "sandbox": "workspace-write",
		"model": "m1", "baseInstructions": "be brief", "developerInstructions": "dev", "config": map[string]any{"model_reasoning_effort": "high"}})
	th := res["thread"].(map[string]any)
	id := th["id"].(string)
	if res["model"] != "m1" || res["cwd"] != "/repo" || res["approvalPolicy"] != "never" ||
		res["sandbox"].(map[string]any)["type"] != "workspaceWrite" || th["status"].(map[string]any)["type"] != "idle" {
		t.Fatalf("thread/start result: %v", res)
	}
	if n := c.read(); n["method"] != "thread/started" || params(n)["thread"].(map[string]any)["id"] != id {
		t.Fatalf("want thread/started, got %v", n)
	}

	rid := c.request("turn/start", map[string]any{"threadId": id, "title": "ABC-1: a title",
		"input": []any{map[string]any{"type": "text", "text": "fix the bug"}},
		"cwd":   "/repo", "approvalPolicy": "on-request", "sandboxPolicy": map[string]any{"type": "dangerFullAccess"}})
	r, _ := c.response(rid)
	turn := r["result"].(map[string]any)["turn"].(map[string]any)
	turnID := turn["id"].(string)
	if turn["status"] != "inProgress" {
		t.Fatalf("turn/start result: %v", r)
	}
	exit := 0
	b.emit(turnID,
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_0", Type: workflows.ItemReasoning, Text: "thinking"}},
		workflows.Event{Type: workflows.EventItemStarted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "go test", Cwd: "/repo", Status: workflows.StatusInProgress}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "go test", Cwd: "/repo", Status: workflows.StatusCompleted, AggregatedOutput: "ok\n", ExitCode: &exit, DurationMs: 12}},
		workflows.Event{Type: workflows.EventItemStarted, Item: &workflows.Item{ID: "item_2", Type: workflows.ItemFileChange, Status: workflows.StatusInProgress}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_2", Type: workflows.ItemFileChange, Status: workflows.StatusCompleted, Changes: []workflows.FileChange{{Path: "a.go", Kind: "update"}, {Path: "b.go", Kind: "add"}}}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_3", Type: workflows.ItemTodoList, Items: []workflows.TodoItem{{Text: "fix", Completed: true}, {Text: "test"}}}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_4", Type: workflows.ItemError, Message: "tool x: bad arguments"}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_5", Type: workflows.ItemAgentMessage, Text: "fixed it"}},
	)
	b.end(turnID, workflows.StatusCompleted, "")
	got := c.until("turn/completed")
	want := []string{
		"thread/status/changed", "turn/started", "item/started", "item/completed", // user message
		"item/started", "item/completed", // reasoning
		"item/started", "item/commandExecution/outputDelta", "item/completed",
		"item/started", "item/completed", // file change
		"turn/plan/updated", "item/started", "item/completed", // plan
		"warning",
		"item/started", "item/agentMessage/delta", "item/completed",
		"thread/tokenUsage/updated", "thread/status/changed", "turn/completed",
	}
	if !reflect.DeepEqual(methods(got), want) {
		t.Fatalf("notifications:\n got %v\nwant %v", methods(got), want)
	}
	user := params(got[2])["item"].(map[string]any)
	if user["type"] != "userMessage" || user["content"].([]any)[0].(map[string]any)["text"] != "fix the bug" {
		t.Fatalf("user message %v", user)
	}
	cmd := params(got[8])["item"].(map[string]any)
	if cmd["command"] != "go test" || cmd["status"] != "completed" || cmd["exitCode"].(float64) != 0 || cmd["aggregatedOutput"] != "ok\n" || cmd["durationMs"].(float64) != 12 {
		t.Fatalf("command item %v", cmd)
	}
	if d := params(got[16])["delta"]; d != "fixed it" {
		t.Fatalf("agent message delta %v", d)
	}
	usage := params(got[18])["tokenUsage"].(map[string]any)
	if usage["total"].(map[string]any)["inputTokens"].(float64) != 100 || usage["last"].(map[string]any)["outputTokens"].(float64) != 20 {
		t.Fatalf("usage %v", usage)
	}
	if params(got[19])["status"].(map[string]any)["type"] != "idle" {
		t.Fatalf("final status %v", got[19])
	}
	done := params(got[20])["turn"].(map[string]any)
	if done["id"] != turnID || done["status"] != "completed" || done["error"] != nil {
		t.Fatalf("turn/completed %v", done)
	}

	// The turn's overrides persist: the next turn runs with them.
	rid = c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "and now the docs"}}})
	r, _ = c.response(rid)
	turn2 := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	if turn2 == turnID {
		t.Fatalf("same turn id twice")
	}
	b.emit(turn2, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_6", Type: workflows.ItemAgentMessage, Text: "docs done"}})
	b.end(turn2, workflows.StatusCompleted, "")
	got = c.until("turn/completed")
	if usage := params(got[len(got)-3])["tokenUsage"].(map[string]any); usage["total"].(map[string]any)["inputTokens"].(float64) != 200 {
		t.Fatalf("total usage after two turns %v", usage)
	}
	info, _ := b.Thread(t.Context(), id)
	if cfg := info.View.Config; cfg.SandboxMode != "danger-full-access" || cfg.ApprovalPolicy != "on-request" || cfg.Cwd != "/repo" {
		t.Fatalf("overrides did not persist: %+v", cfg)
	}

	// thread/read shows both turns with their items.
	read := c.call("thread/read", map[string]any{"threadId": id, "includeTurns": true})["thread"].(map[string]any)
	turns := read["turns"].([]any)
	if len(turns) != 2 || read["preview"] != nil && read["preview"] != "" && read["preview"] != "fix the bug" {
		t.Fatalf("thread/read %v", read)
	}
	items := turns[0].(map[string]any)["items"].([]any)
	var types []string
	for _, it := range items {
		types = append(types, it.(map[string]any)["type"].(string))
	}
	if want := []string{"userMessage", "reasoning", "commandExecution", "fileChange", "plan", "agentMessage"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("items of turn 1: %v, want %v", types, want)
	}
}

func TestInterruptAnswersOnceTheTurnStopped(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	r, _ := c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	c.until("item/completed") // the user message
	wantError(t, c.callErr("turn/interrupt", map[string]any{"threadId": id, "turnId": "other"}), -32600, "expected active turn id `other`")
	iid := c.request("turn/interrupt", map[string]any{"threadId": id, "turnId": turnID})
	got := c.until("turn/completed")
	if ms := methods(got); !reflect.DeepEqual(ms, []string{"response", "thread/tokenUsage/updated", "thread/status/changed", "turn/completed"}) {
		t.Fatalf("after interrupt: %v", ms)
	}
	if jsonID(got[0]["id"]) != iid {
		t.Fatalf("first message is not the interrupt's response: %v", got[0])
	}
	if st := params(got[3])["turn"].(map[string]any)["status"]; st != "interrupted" {
		t.Fatalf("status %v", st)
	}
}

func TestFailedTurn(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	r, _ := c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	b.end(turnID, workflows.StatusFailed, "model: 401 unauthorized")
	got := c.until("turn/completed")
	n := len(got)
	if ms := methods(got[n-4:]); !reflect.DeepEqual(ms, []string{"thread/tokenUsage/updated", "thread/status/changed", "error", "turn/completed"}) {
		t.Fatalf("end of a failed turn: %v", ms)
	}
	if params(got[n-3])["status"].(map[string]any)["type"] != "systemError" {
		t.Fatalf("status %v", got[n-3])
	}
	turn := params(got[n-1])["turn"].(map[string]any)
	if turn["status"] != "failed" || turn["error"].(map[string]any)["message"] != "model: 401 unauthorized" {
		t.Fatalf("turn %v", turn)
	}

	// A turn stopped by its timeout is a failure with the reason.
	r, _ = c.response(c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}}))
	turnID = r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	b.end(turnID, workflows.StatusInterrupted, "turn timed out after 1h0m0s")
	got = c.until("turn/completed")
	if turn := params(got[len(got)-1])["turn"].(map[string]any); turn["status"] != "failed" || !strings.Contains(turn["error"].(map[string]any)["message"].(string), "timed out") {
		t.Fatalf("timed-out turn %v", turn)
	}
}

// A new server process (connection) resumes a thread whose turn is
// running: the response holds what the turn did so far, and the rest of
// its events follow, ending in turn/completed.
func TestResumeMidTurn(t *testing.T) {
	b := newFakeBackend()
	c1 := startClient(t, b)
	c1.initialize()
	id := c1.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c1.read()
	r, _ := c1.response(c1.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "long task"}}}))
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_0", Type: workflows.ItemAgentMessage, Text: "step one"}},
		workflows.Event{Type: workflows.EventItemStarted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "make", Cwd: "/repo", Status: workflows.StatusInProgress}})
	c1.until("item/started")
	c1.until("item/completed")
	c1.until("item/started")
	c1.close()

	c2 := startClient(t, b)
	c2.initialize()
	res := c2.call("thread/resume", map[string]any{"threadId": id, "model": "m2"})
	th := res["thread"].(map[string]any)
	if th["status"].(map[string]any)["type"] != "active" || res["model"] != "m2" {
		t.Fatalf("resume: %v", res)
	}
	turns := th["turns"].([]any)
	last := turns[len(turns)-1].(map[string]any)
	items := last["items"].([]any)
	if last["status"] != "inProgress" || len(items) != 3 || items[2].(map[string]any)["status"] != "inProgress" {
		t.Fatalf("running turn in resume: %v", last)
	}
	exit := 2
	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "make", Cwd: "/repo", Status: workflows.StatusCompleted, ExitCode: &exit, AggregatedOutput: "boom"}})
	b.end(turnID, workflows.StatusCompleted, "")
	got := c2.until("turn/completed")
	want := []string{"item/commandExecution/outputDelta", "item/completed", "thread/tokenUsage/updated", "thread/status/changed", "turn/completed"}
	if !reflect.DeepEqual(methods(got), want) {
		t.Fatalf("after resume:\n got %v\nwant %v", methods(got), want)
	}
	// The resume's model override applies to the next turn.
	c2.response(c2.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "next"}}}))
	info, _ := b.Thread(t.Context(), id)
	if info.View.Config.Model != "m2" {
		t.Fatalf("model after resume override: %s", info.View.Config.Model)
	}
}

func TestThreadListPages(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, c.call("thread/start", map[string]any{"cwd": fmt.Sprintf("/w%d", i%2)})["thread"].(map[string]any)["id"].(string))
		c.read()
	}
	// Listed once they have a first prompt; the last one has none yet.
	empty := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	b.mu.Lock()
	for _, id := range ids {
		b.threads[id].info.Preview = "prompt of " + id
	}
	b.mu.Unlock()
	page := c.call("thread/list", map[string]any{"limit": 2})
	data := page["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["id"] != ids[4] || page["nextCursor"] == nil {
		t.Fatalf("first page (the newest thread, %s, has no prompt yet) %v", empty, page)
	}
	if len(data) != 1 || data[0].(map[string]any)["id"] != ids[4] || page["nextCursor"] == nil {
		t.Fatalf("first page %v", page)
	}
	var all []string
	cursor := any(nil)
	for {
		p := c.call("thread/list", map[string]any{"limit": 2, "cursor": cursor})
		for _, d := range p["data"].([]any) {
			all = append(all, d.(map[string]any)["id"].(string))
		}
		if cursor = p["nextCursor"]; cursor == nil {
			break
		}
	}
	if !reflect.DeepEqual(all, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}) {
		t.Fatalf("all pages: %v", all)
	}
	filtered := c.call("thread/list", map[string]any{"cwd": "/w1"})["data"].([]any)
	if len(filtered) != 2 {
		t.Fatalf("cwd filter: %v", filtered)
	}
	wantError(t, c.callErr("thread/list", map[string]any{"cursor": "bogus"}), -32600, "cursor")
}

func TestDynamicToolsNeedExperimentalAPI(t *testing.T) {
	c := startClient(t, newFakeBackend())
	c.initialize()
	tools := []any{map[string]any{"name": "lookup", "description": "d", "inputSchema": map[string]any{"type": "object"}}}
	wantError(t, c.callErr("thread/start", map[string]any{"dynamicTools": tools}), -32600, "thread/start.dynamicTools requires experimentalApi capability")
}

func TestParamsErrorsNameTheField(t *testing.T) {
	var p turnStartParams
	err := decodeParams(json.RawMessage(`{"threadId": "t", "input": [], "model": 3}`), &p, "threadId", "input")
	if err == nil || !strings.Contains(err.Error(), "`model`") {
		t.Fatalf("error %v does not name the field", err)
	}
}

func TestForkModelsConfigAndExec(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	src := c.call("thread/start", map[string]any{"cwd": "/repo", "model": "m1"})["thread"].(map[string]any)["id"].(string)
	c.read()
	r, _ := c.response(c.request("turn/start", map[string]any{"threadId": src, "input": []any{map[string]any{"type": "text", "text": "hello"}}}))
	b.end(r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string), workflows.StatusCompleted, "")
	c.until("turn/completed")

	fork := c.call("thread/fork", map[string]any{"threadId": src, "model": "m2"})
	th := fork["thread"].(map[string]any)
	if th["forkedFromId"] != src || th["id"] == src || fork["model"] != "m2" || fork["cwd"] != "/repo" {
		t.Fatalf("thread/fork %v", fork)
	}
	if n := c.read(); n["method"] != "thread/started" || params(n)["thread"].(map[string]any)["id"] != th["id"] {
		t.Fatalf("want thread/started for the fork, got %v", n)
	}
	wantError(t, c.callErr("thread/fork", map[string]any{"threadId": "nope"}), -32600, "thread not found: nope")

	models := c.call("model/list", map[string]any{})["data"].([]any)
	if len(models) != 2 || models[0].(map[string]any)["isDefault"] != true {
		t.Fatalf("model/list %v", models)
	}
	c.call("model/list", nil)
	if cfg := c.call("config/read", map[string]any{})["config"].(map[string]any); cfg["model"] != "fake-model" {
		t.Fatalf("config/read %v", cfg)
	}
	if f := c.call("experimentalFeature/list", map[string]any{})["data"].([]any); len(f) != 0 {
		t.Fatalf("experimentalFeature/list %v", f)
	}

	res := c.call("command/exec", map[string]any{"command": []string{"ls", "-la"}, "cwd": "sub", "timeoutMs": 500,
		"sandboxPolicy": map[string]any{"type": "readOnly"}, "env": map[string]any{"A": "1", "B": nil}})
	if res["exitCode"].(float64) != 3 || res["stdout"] != "ls -la" || res["stderr"] != "warn" {
		t.Fatalf("command/exec %v", res)
	}
	got := b.execs[0]
	if got.Cwd != "/work/sub" || got.SandboxMode != "read-only" || got.Timeout != 500*time.Millisecond || got.Env["B"] != nil || *got.Env["A"] != "1" {
		t.Fatalf("exec request %+v", got)
	}
	wantError(t, c.callErr("command/exec", map[string]any{"command": []string{}}), -32600, "command must not be empty")
	wantError(t, c.callErr("command/exec", map[string]any{"command": []string{"sh"}, "tty": true}), -32600, "processId is required")
	wantError(t, c.callErr("command/exec/write", map[string]any{"processId": "p9"}), -32600, "no running command/exec process")
}
