package appserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func execCommand(args map[string]any) fakemodel.ToolCall {
	b, _ := json.Marshal(args)
	return fakemodel.ToolCall{Name: "exec_command", Arguments: b}
}

// bgThread starts a thread and a turn that leaves cmd running in the
// background, and waits for that turn to end.
func bgThread(t *testing.T, e *env, a *e2etest.AppServer) string {
	t.Helper()
	res, _ := a.Call("thread/start", map[string]any{"approvalPolicy": "never", "sandbox": "danger-full-access", "cwd": e.Work})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "build in the background"}}})
	done := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)
	if done["status"] != "completed" {
		t.Fatalf("first turn: %v", done)
	}
	return id
}

func terminals(a *e2etest.AppServer, id string) []any {
	res, _ := a.Call("thread/backgroundTerminals/list", map[string]any{"threadId": id})
	return res["data"].([]any)
}

// A command still running when its turn ends is listed as a background
// terminal; when it exits, the idle thread starts a turn by itself in
// which the model reads the exit code and the last output, once.
func TestBackgroundTerminalExitWakesThreadOnce(t *testing.T) {
	marker := "bg-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "build in the background", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{execCommand(map[string]any{
				"cmd": "echo began >> runs.txt; echo started-" + marker + "; while [ ! -f go ]; do sleep 0.1; done; echo built-" + marker + "; exit 7", "yield_time_ms": 500})}},
			{Text: "left the build running"},
		}},
		{Match: "background_terminal_notification", Steps: []fakemodel.Step{{Text: "the build failed with exit 7"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	id := bgThread(t, e, a)

	list := terminals(a, id)
	if len(list) != 1 {
		t.Fatalf("background terminals: %v", list)
	}
	term := list[0].(map[string]any)
	if term["processId"] != "1000" || !strings.Contains(term["command"].(string), marker) || term["cwd"] != e.Work {
		t.Fatalf("background terminal: %v", term)
	}
	if err := os.WriteFile(filepath.Join(e.Work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The wake-up is a turn like any other to a client following the thread.
	done := e2etest.NoteParams(e2etest.Last(a.Until("turn/completed", 90*time.Second)))["turn"].(map[string]any)
	if done["status"] != "completed" {
		t.Fatalf("wake-up turn: %v", done)
	}
	woke := e.Model.Server.RequestsContaining("background_terminal_notification")
	if len(woke) != 1 {
		t.Fatalf("%d requests carry the notice, want 1", len(woke))
	}
	body := string(woke[0].Body)
	for _, want := range []string{`\"exit_code\":7`, "built-" + marker, `\"session_id\":1000`} {
		if !strings.Contains(body, want) {
			t.Errorf("the wake-up does not show %s:\n%s", want, body)
		}
	}
	if n := strings.Count(body, `\"exit_code\":7`); n != 1 {
		t.Errorf("the exit is told %d times in the request", n)
	}
	if list := terminals(a, id); len(list) != 0 {
		t.Errorf("an exited terminal is still listed: %v", list)
	}
	read, _ := a.Call("thread/read", map[string]any{"threadId": id, "includeTurns": true})
	if turns := read["thread"].(map[string]any)["turns"].([]any); len(turns) != 2 {
		t.Errorf("%d turns, want the user's and one wake-up", len(turns))
	}
	b, _ := os.ReadFile(filepath.Join(e.Work, "runs.txt"))
	if n := strings.Count(string(b), "began"); n != 1 {
		t.Errorf("the command ran %d times", n)
	}
}

// thread/backgroundTerminals/terminate kills a background terminal's
// processes; the model is told in the next turn, and nothing wakes the
// thread.
func TestBackgroundTerminalTerminateViaAppServer(t *testing.T) {
	marker := "srv-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "build in the background", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{execCommand(map[string]any{"cmd": "echo up-" + marker + "; while true; do sleep 0.5; done", "yield_time_ms": 500})}},
			{Text: "left the server running"},
		}},
		{Match: "is it still up", Steps: []fakemodel.Step{{Text: "it was terminated"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()
	id := bgThread(t, e, a)
	if len(serverPids(marker)) == 0 {
		t.Fatal("the background command is not running")
	}
	res, _ := a.Call("thread/backgroundTerminals/terminate", map[string]any{"threadId": id, "processId": "1000"})
	if res["terminated"] != true {
		t.Fatalf("terminate: %v", res)
	}
	e2etest.WaitUntil(t, func() bool { return len(serverPids(marker)) == 0 }, 10*time.Second, "the terminal's processes to die",
		func() string { return "" })
	if list := terminals(a, id); len(list) != 0 {
		t.Errorf("a terminated terminal is still listed: %v", list)
	}
	if res, _ := a.Call("thread/backgroundTerminals/terminate", map[string]any{"threadId": id, "processId": "1000"}); res["terminated"] != false {
		t.Errorf("a second terminate: %v", res)
	}
	if e := a.CallErr("thread/backgroundTerminals/terminate", map[string]any{"threadId": id, "processId": "x"}); !strings.Contains(e["message"].(string), "invalid background terminal process id") {
		t.Errorf("a bad process id: %v", e)
	}
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "is it still up?"}}})
	a.Until("turn/completed", 90*time.Second)
	told := e.Model.Server.RequestsContaining("A person terminated this background terminal")
	if len(told) != 1 {
		t.Fatalf("%d requests tell of the terminate, want 1", len(told))
	}
	read, _ := a.Call("thread/read", map[string]any{"threadId": id, "includeTurns": true})
	if turns := read["thread"].(map[string]any)["turns"].([]any); len(turns) != 2 {
		t.Errorf("%d turns: the terminate must not wake the thread", len(turns))
	}
}

// serverPids are the processes whose command line holds marker.
func serverPids(marker string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}
