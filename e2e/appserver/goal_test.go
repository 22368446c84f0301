package appserver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A goal set through thread/goal/set by a WebSocket client that then
// disconnects runs its continuation turns to complete with no client
// attached, across a SIGKILL of `interpreter dev` restarted on the same
// data, and every command runs once.
func TestGoalCompletesAfterClientLeavesAndDevIsKilled(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		// Each continuation prompt counts the turns before it.
		{Match: "over 0 continuation turns", Steps: []fakemodel.Step{
			{Shell: "echo step-1 >> steps.txt"},
			{Text: "part one done"},
		}},
		{Match: "over 1 continuation turns", Steps: []fakemodel.Step{
			{Shell: "echo step-2 >> steps.txt"},
			{DelayMs: 4000, Text: "part two done"},
		}},
		{Match: "over 2 continuation turns", Steps: []fakemodel.Step{
			{Shell: "echo step-3 >> steps.txt"},
			{Shell: "echo step-4 >> steps.txt"},
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("update_goal", `{"status":"complete"}`)}},
			{Text: "all four steps are done"},
		}},
	}})
	dev, url := e.startDevListening()
	schema := e2etest.LoadSchema(t)
	a := dialPeer(t, url, schema)
	id := a.call("thread/start", map[string]any{"approvalPolicy": "never", "cwd": e.Work})["thread"].(map[string]any)["id"].(string)
	set := a.call("thread/goal/set", map[string]any{"threadId": id, "objective": "write the four steps", "tokenBudget": 1000000})
	if g := set["goal"].(map[string]any); g["status"] != "active" || g["objective"] != "write the four steps" || g["threadId"] != id {
		t.Fatalf("thread/goal/set: %v", set)
	}
	if g := e2etest.NoteParams(a.until("thread/goal/updated"))["goal"].(map[string]any); g["status"] != "active" {
		t.Fatalf("thread/goal/updated: %v", g)
	}
	// The goal's first turn is a turn like any other to the client.
	a.until("turn/started")
	a.ws.CloseNow()

	// Kill the whole dev process while the second continuation's model
	// call is in its delay, after its command ran.
	e2etest.WaitUntil(t, func() bool { return e.Model.Server.ArrivalsContaining("step-2 >>") > 0 }, 90*time.Second,
		"the second continuation's model call", func() string { return dev.Stderr.String() })
	if len(e.Model.Server.RequestsContaining("part two done")) > 0 {
		t.Fatal("the slow call was answered before the kill; the test would prove nothing")
	}
	dev.Kill()
	dev2, url2 := e.startDevListening()
	defer dev2.Kill()

	b := dialPeer(t, url2, schema)
	var goal map[string]any
	e2etest.WaitUntil(t, func() bool {
		goal, _ = b.call("thread/goal/get", map[string]any{"threadId": id})["goal"].(map[string]any)
		return goal != nil && goal["status"] != "active"
	}, 120*time.Second, "the goal to end", func() string { return fmt.Sprint(goal, "\n", dev2.Stderr.String()) })
	if goal["status"] != "complete" {
		t.Fatalf("goal: %v", goal)
	}
	if used, _ := goal["tokensUsed"].(float64); used <= 0 {
		t.Fatalf("no tokens counted: %v", goal)
	}
	steps, err := os.ReadFile(filepath.Join(e.Work, "steps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(steps); got != "step-1\nstep-2\nstep-3\nstep-4\n" {
		t.Fatalf("steps.txt (each command once, in order):\n%s", got)
	}
	// The model marked the goal complete inside the last turn, which
	// then ends with its answer.
	var turns []any
	e2etest.WaitUntil(t, func() bool {
		read := b.call("thread/read", map[string]any{"threadId": id, "includeTurns": true})
		turns = read["thread"].(map[string]any)["turns"].([]any)
		return turns[len(turns)-1].(map[string]any)["status"] != "inProgress"
	}, 60*time.Second, "the last turn to end", func() string { return fmt.Sprint(turns) })
	if len(turns) != 3 {
		t.Fatalf("want the three continuation turns, got %d: %v", len(turns), turns)
	}
	for _, tr := range turns {
		if s := tr.(map[string]any)["status"]; s != "completed" {
			t.Fatalf("turn %v", tr)
		}
	}
}

// startDevListening starts `interpreter dev` with its WebSocket
// app-server and returns the address it prints.
func (e *env) startDevListening() (*e2etest.Proc, string) {
	e.T.Helper()
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "ws://127.0.0.1:0"}, e.Config()...)...)
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	m := regexp.MustCompile(`App server: +(ws://\S+)`).FindStringSubmatch(dev.Stdout.String())
	if m == nil {
		e.T.Fatalf("dev did not print the app-server's address:\n%s", dev.Stdout)
	}
	return dev, m[1]
}
