package appserver

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// untilCommandDone reads until an item/completed of a command item and
// returns its params.
func untilCommandDone(t *testing.T, a *e2etest.AppServer) map[string]any {
	t.Helper()
	for {
		p := e2etest.NoteParams(e2etest.Last(a.Until("item/completed", 90*time.Second)))
		if p["item"].(map[string]any)["type"] == "commandExecution" {
			return p
		}
	}
}

// seenIndex is the position in a.Seen of the first notification with
// method whose item (or turn) has id; -1 if none.
func seenIndex(a *e2etest.AppServer, method, id string) int {
	for i, m := range a.Seen {
		if m["method"] != method {
			continue
		}
		p := e2etest.NoteParams(m)
		for _, k := range []string{"item", "turn"} {
			if v, ok := p[k].(map[string]any); ok && v["id"] == id {
				return i
			}
		}
	}
	return -1
}

// As in Codex's server, a command left running when its turn ends stays
// an open item (item/started as unified exec, with its process id; no
// item/completed) past turn/completed; its process's exit completes it
// under the turn that started it, with its output.
func TestBackgroundTerminalItemOpenUntilExit(t *testing.T) {
	marker := "item-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "build in the background", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{execCommand(map[string]any{
				"cmd": "echo started-" + marker + "; while [ ! -f go ]; do sleep 0.1; done; echo finished-" + marker + "; exit 7", "yield_time_ms": 500})}},
			{Text: "left the build running"},
		}},
		{Match: "background_terminal_notification", Steps: []fakemodel.Step{{Text: "the build failed"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	id := bgThread(t, e, a)
	running := time.Now().UnixMilli() // the process started before its turn ended

	var item map[string]any
	var turnID string
	for _, m := range a.Seen {
		if m["method"] == "item/started" {
			p := e2etest.NoteParams(m)
			if it := p["item"].(map[string]any); it["type"] == "commandExecution" {
				item, turnID = it, p["turnId"].(string)
			}
		}
	}
	if item == nil || item["source"] != "unifiedExecStartup" || item["processId"] != "1000" || item["status"] != "inProgress" {
		t.Fatalf("the command's item/started: %v", item)
	}
	itemID := item["id"].(string)
	if i := seenIndex(a, "item/completed", itemID); i >= 0 {
		t.Fatalf("the running command's item completed with its turn: %v", a.Seen[i])
	}
	wrote := time.Now().UnixMilli()
	if err := os.WriteFile(filepath.Join(e.Work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := untilCommandDone(t, a)
	if at, _ := done["completedAtMs"].(float64); int64(at) < wrote {
		t.Fatalf("the item completed at %d, before its process could exit (%d)", int64(at), wrote)
	}
	got := done["item"].(map[string]any)
	if got["id"] != itemID || done["turnId"] != turnID || got["processId"] != "1000" || got["source"] != "unifiedExecStartup" {
		t.Fatalf("the item completed: %v", done)
	}
	// As Codex's server reports a process's end: failed for a non-zero
	// exit, its exit code, its whole run and all it printed.
	if got["status"] != "failed" {
		t.Errorf("status %v", got["status"])
	}
	if code, _ := got["exitCode"].(float64); code != 7 {
		t.Errorf("exitCode %v", got["exitCode"])
	}
	if ms, _ := got["durationMs"].(float64); int64(ms) < wrote-running {
		t.Errorf("durationMs %v: the process ran at least %d ms before it could exit", got["durationMs"], wrote-running)
	}
	if out, _ := got["aggregatedOutput"].(string); out != "started-"+marker+"\nfinished-"+marker+"\n" {
		t.Errorf("aggregatedOutput %q", out)
	}
	if seenIndex(a, "item/completed", itemID) < seenIndex(a, "turn/completed", turnID) {
		t.Error("item/completed came before its turn's turn/completed")
	}
	if list := terminals(a, id); len(list) != 0 {
		t.Errorf("an exited terminal is still listed: %v", list)
	}
}

// thread/backgroundTerminals/clean (the TUI's /stop) completes the open
// items of the sessions it ends, failed, right after its response.
func TestBackgroundTerminalItemCompletedByClean(t *testing.T) {
	marker := "clean-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "build in the background", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{execCommand(map[string]any{"cmd": "echo up-" + marker + "; while true; do sleep 0.5; done", "yield_time_ms": 500})}},
			{Text: "left the server running"},
		}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	id := bgThread(t, e, a)
	a.Call("thread/backgroundTerminals/clean", map[string]any{"threadId": id})
	done := untilCommandDone(t, a)
	if got := done["item"].(map[string]any); got["status"] != "failed" || got["processId"] != "1000" {
		t.Fatalf("the cleaned command's item: %v", got)
	}
	e2etest.WaitUntil(t, func() bool { return len(serverPids(marker)) == 0 }, 10*time.Second, "the processes to die",
		func() string { return "" })
}
