package appserver

import (
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func itemsOf(notes []map[string]any, method string) []map[string]any {
	var items []map[string]any
	for _, n := range notes {
		if n["method"] == method {
			items = append(items, e2etest.NoteParams(n)["item"].(map[string]any))
		}
	}
	return items
}

// An orchestrator's whole flow against the built binary: handshake, a
// thread, a turn with Symphony's parameters and its events, then a
// continuation turn on the same thread that keeps the whole history.
func TestAppServerOrchestratorFlow(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "ABC-1", Steps: []fakemodel.Step{{Reasoning: "look first", Shell: "echo app-server-marker; sleep 2; echo app-server-later"},
			{Text: "first turn done, streamed", ChunkDelayMs: 150}}},
		{Match: "continue", Steps: []fakemodel.Step{{Text: "second turn done"}}},
		{Match: "forked", Steps: []fakemodel.Step{{Text: "fork turn done"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	schema := e2etest.LoadSchema(t)
	a := e.AppServer(schema)
	start := time.Now()
	a.Handshake()

	res, _ := a.Call("thread/start", map[string]any{"approvalPolicy": "never", "sandbox": "workspace-write", "cwd": e.Work})
	threadStarted := time.Since(start)
	th := res["thread"].(map[string]any)
	id := th["id"].(string)
	if res["cwd"] != e.Work || res["approvalPolicy"] != "never" || res["sandbox"].(map[string]any)["type"] != "workspaceWrite" {
		t.Fatalf("thread/start result %v", res)
	}
	if n := a.Read(30 * time.Second); n["method"] != "thread/started" {
		t.Fatalf("want thread/started, got %v", n)
	}

	turnStart := time.Now()
	res, _ = a.Call("turn/start", map[string]any{
		"threadId": id, "input": []any{map[string]any{"type": "text", "text": "Work on ABC-1: fix the flaky test"}},
		"cwd": e.Work, "title": "ABC-1: Fix the flaky test", "approvalPolicy": "never",
		"sandboxPolicy": map[string]any{"type": "workspaceWrite", "writableRoots": []string{e.Work}, "networkAccess": false},
	})
	turn := res["turn"].(map[string]any)
	if turn["status"] != "inProgress" {
		t.Fatalf("turn/start result %v", res)
	}
	notes := a.Until("turn/completed", 90*time.Second)
	turnTook := time.Since(turnStart)
	done := e2etest.NoteParams(notes[len(notes)-1])["turn"].(map[string]any)
	if done["status"] != "completed" || done["id"] != turn["id"] {
		t.Fatalf("turn/completed %v", done)
	}
	if notes[0]["method"] != "thread/status/changed" || notes[1]["method"] != "turn/started" {
		t.Fatalf("the turn did not begin with thread/status/changed, turn/started: %v", notes[:2])
	}
	completed := itemsOf(notes, "item/completed")
	var types []string
	for _, it := range completed {
		types = append(types, it["type"].(string))
	}
	if strings.Join(types, ",") != "userMessage,reasoning,commandExecution,agentMessage" {
		t.Fatalf("completed items %v", types)
	}
	cmd := completed[2]
	if !strings.Contains(cmd["aggregatedOutput"].(string), "app-server-marker") || cmd["exitCode"].(float64) != 0 || cmd["status"] != "completed" {
		t.Fatalf("command item %v", cmd)
	}
	if completed[3]["text"] != "first turn done, streamed" {
		t.Fatalf("final message %v", completed[3])
	}
	// The command's output streams while it runs (read from the worker's
	// heartbeats in the dev server) and the answer while the model writes
	// it: deltas between each item's item/started and item/completed that
	// add up to its final text.
	for _, c := range []struct {
		method string
		item   map[string]any
		final  string
	}{
		{"item/commandExecution/outputDelta", cmd, cmd["aggregatedOutput"].(string)},
		{"item/agentMessage/delta", completed[3], "first turn done, streamed"},
	} {
		itemID := c.item["id"].(string)
		startedAt, completedAt := -1, -1
		var deltas []string
		var deltaAt []int
		for i, n := range notes {
			p := e2etest.NoteParams(n)
			switch n["method"] {
			case "item/started", "item/completed":
				if it := p["item"].(map[string]any); it["id"] == itemID && n["method"] == "item/started" {
					startedAt = i
				} else if it["id"] == itemID {
					completedAt = i
				}
			case c.method:
				if p["itemId"] == itemID {
					deltas, deltaAt = append(deltas, p["delta"].(string)), append(deltaAt, i)
				}
			}
		}
		if len(deltas) < 2 || strings.Join(deltas, "") != c.final || startedAt < 0 || startedAt > deltaAt[0] || completedAt < deltaAt[len(deltaAt)-1] {
			t.Errorf("%s of %s: %q at %v (started at %d, completed at %d), want several adding up to %q", c.method, itemID, deltas, deltaAt,
				startedAt, completedAt, c.final)
		}
	}
	// The first line went out on its own, while the command slept. A
	// command's first 250 ms run inside the turn's workflow task, so its
	// first line is told at the hand-off: the 2 s sleep leaves a loaded
	// machine time to do that, and the line still has to come alone.
	if d := deltaWith(notes, "item/commandExecution/outputDelta", cmd["id"].(string), "app-server-marker"); d == "" || strings.Contains(d, "app-server-later") {
		t.Errorf("output delta %q: the command's first line did not go out on its own", d)
	}

	// The continuation turn: same thread, the model sees the whole history.
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "continue with the docs"}}})
	notes = a.Until("turn/completed", 90*time.Second)
	if st := e2etest.NoteParams(notes[len(notes)-1])["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("continuation turn %v", st)
	}
	req, _ := e.Model.Server.LastRequest()
	for _, want := range []string{"ABC-1", "app-server-marker", "first turn done", "continue with the docs"} {
		if !strings.Contains(string(req.Body), want) {
			t.Errorf("the continuation's model call lacks %q", want)
		}
	}
	read, _ := a.Call("thread/read", map[string]any{"threadId": id, "includeTurns": true})
	if turns := read["thread"].(map[string]any)["turns"].([]any); len(turns) != 2 {
		t.Fatalf("thread/read turns %v", turns)
	}
	list, _ := a.Call("thread/list", map[string]any{"limit": 10})
	if data := list["data"].([]any); len(data) == 0 || data[0].(map[string]any)["id"] != id {
		t.Fatalf("thread/list %v", list)
	}

	// A fork carries the history into a new thread.
	fork, notes := a.Call("thread/fork", map[string]any{"threadId": id})
	forkID := fork["thread"].(map[string]any)["id"].(string)
	if fork["thread"].(map[string]any)["forkedFromId"] != id || forkID == id {
		t.Fatalf("thread/fork %v", fork)
	}
	if n := a.Read(30 * time.Second); n["method"] != "thread/started" {
		t.Fatalf("want thread/started for the fork, got %v (%v)", n, notes)
	}
	a.Call("turn/start", map[string]any{"threadId": forkID, "input": []any{map[string]any{"type": "text", "text": "forked: go on"}}})
	if st := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn on the fork: %v", st)
	}
	req, _ = e.Model.Server.LastRequest()
	if !strings.Contains(string(req.Body), "second turn done") || !strings.Contains(string(req.Body), "forked: go on") {
		t.Errorf("the fork's model call lacks the source's history")
	}

	models, _ := a.Call("model/list", map[string]any{})
	if m := models["data"].([]any); len(m) == 0 || m[0].(map[string]any)["id"] != "fake-model" {
		t.Fatalf("model/list %v", models)
	}
	if cfg, _ := a.Call("config/read", map[string]any{}); cfg["config"].(map[string]any)["model_provider"] != "fake" {
		t.Fatalf("config/read %v", cfg)
	}
	out, _ := a.Call("command/exec", map[string]any{"command": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
	if out["exitCode"].(float64) != 3 || out["stdout"] != "out\n" || out["stderr"] != "err\n" {
		t.Fatalf("command/exec %v", out)
	}
	t.Logf("thread/start %s (from process start, handshake included), first turn (2 model calls, 1 command) %s", threadStarted, turnTook)
}

// The app-server is SIGKILLed in the middle of a turn, while a command
// runs; a new app-server process resumes the thread and receives the rest
// of that turn's events from where the log left off, ending in
// turn/completed.
func TestAppServerCrashMidTurnResumes(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "sleep 3; echo before-the-crash"},
		{Text: "answer after the crash"},
	}}, {Steps: []fakemodel.Step{{Text: "ok"}}}}})
	dev := e.StartDev()
	defer dev.Kill()
	schema := e2etest.LoadSchema(t)
	a := e.AppServer(schema)
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never", "sandbox": "danger-full-access"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second) // thread/started
	res, _ = a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "long job"}}})
	turnID := res["turn"].(map[string]any)["id"].(string)
	for {
		m := a.Read(60 * time.Second)
		if m["method"] == "item/started" && e2etest.NoteParams(m)["item"].(map[string]any)["type"] == "commandExecution" {
			break
		}
	}
	a.Kill()

	b := e.AppServer(schema)
	b.Handshake()
	res, notes := b.Call("thread/resume", map[string]any{"threadId": id})
	if len(notes) != 0 {
		t.Fatalf("notifications before the resume response: %v", notes)
	}
	th := res["thread"].(map[string]any)
	if th["status"].(map[string]any)["type"] != "active" {
		t.Fatalf("resumed thread status %v", th["status"])
	}
	turns := th["turns"].([]any)
	running := turns[len(turns)-1].(map[string]any)
	items := running["items"].([]any)
	if running["id"] != turnID || running["status"] != "inProgress" || len(items) != 2 {
		t.Fatalf("running turn in the resume response: %v", running)
	}
	cmd := items[1].(map[string]any)
	if cmd["type"] != "commandExecution" || cmd["status"] != "inProgress" {
		t.Fatalf("the command in the resume response: %v", cmd)
	}
	rest := b.Until("turn/completed", 90*time.Second)
	var got []string
	for _, n := range rest {
		got = append(got, n["method"].(string))
		if n["method"] == "turn/started" || n["method"] == "item/started" && e2etest.NoteParams(n)["item"].(map[string]any)["id"] == cmd["id"] {
			t.Fatalf("a notification repeats what the resume response held: %v", n)
		}
	}
	completed := itemsOf(rest, "item/completed")
	if len(completed) != 2 || completed[0]["id"] != cmd["id"] || !strings.Contains(completed[0]["aggregatedOutput"].(string), "before-the-crash") ||
		completed[1]["text"] != "answer after the crash" {
		t.Fatalf("items after the resume: %v\n(notifications %v)", completed, got)
	}
	if st := e2etest.NoteParams(rest[len(rest)-1])["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn after the crash: %v", st)
	}
	// The thread goes on in the new process.
	b.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "one more"}}})
	if st := e2etest.NoteParams(e2etest.Last(b.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn after the resume: %v", st)
	}
}

// The worker (here with the whole dev server) is SIGKILLed during a model
// call; after a restart the turn goes on and the same app-server keeps
// streaming it to the end, each item once.
func TestAppServerSurvivesWorkerRestart(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo first-step"},
		{DelayMs: 4000, Text: "slow answer arrived"},
	}}}})
	dev := e.StartDev()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never", "sandbox": "danger-full-access"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second) // thread/started
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "do the thing"}}})
	e2etest.WaitUntil(t, func() bool { return len(e.Model.Server.RequestsContaining("first-step")) > 0 }, 60*time.Second,
		"the second model call", func() string { return a.Stderr.String() })
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	notes := a.Until("turn/completed", 120*time.Second)
	completed := 0
	seen := map[string]bool{}
	for _, n := range a.Seen {
		if n["method"] == "item/completed" {
			it := e2etest.NoteParams(n)["item"].(map[string]any)
			if seen[it["id"].(string)] {
				t.Fatalf("item %v completed twice", it)
			}
			seen[it["id"].(string)] = true
			completed++
		}
	}
	if st := e2etest.NoteParams(e2etest.Last(notes))["turn"].(map[string]any)["status"]; st != "completed" || completed != 3 {
		t.Fatalf("turn %v with %d items; seen:\n%v", st, completed, a.Seen)
	}
}
