package crash

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// Two workers of one host, the one holding a quiet call SIGKILLed for
// good: an MCP call, a unified-exec poll and a background terminal's
// watch heartbeat minutes apart (their heartbeat timeout is a command's,
// 10 min), yet the other worker sees the holder die (lock files) and ends
// its call within seconds: the turn goes on, or the thread learns that
// its background terminal ended with its worker.
func TestLostWorkersQuietCallsAreReportedAtOnce(t *testing.T) {
	mcp := mcptest.BuildServer(t)
	call := func(name string, args any) fakemodel.ToolCall {
		b, _ := json.Marshal(args)
		return fakemodel.ToolCall{Name: name, Arguments: b}
	}
	w := newWorkerWorld(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "lost mcp cell", Steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{call("mcp__slow__sleep", map[string]int{"ms": 45000})}}, {Text: "went on"}}},
		{Match: "lost poll cell", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("exec_command", map[string]any{"cmd": "sleep 120", "yield_time_ms": 250})}},
			{ToolCalls: []fakemodel.ToolCall{call("write_stdin", map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 300000})}},
			{Text: "went on"},
		}},
		{Match: "lost terminal cell", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("exec_command", map[string]any{"cmd": "sleep 120", "yield_time_ms": 250})}},
			{Text: "went on"},
		}},
	}})
	a, _ := w.Worker()
	b, _ := w.Worker()
	workers := []*e2etest.Proc{a, b}
	for _, c := range []struct {
		cell, activity string
		onThread       bool
	}{{"lost mcp cell", "MCPCallTool", false}, {"lost poll cell", "WriteStdin", false}, {"lost terminal cell", "WatchSession", true}} {
		run := w.Exec("--json", "-c", "approval_policy=never", "-c", "sandbox_mode=danger-full-access",
			"-c", fmt.Sprintf("mcp_servers.slow={command=%q}", mcp), c.cell)
		run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
		id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
		if !c.onThread {
			id += "/turn-1"
		} else if code := run.Wait(90 * time.Second); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.cell, code, run.Stdout, run.Stderr)
		}
		w.pendingStarted(id, c.activity)
		holder := w.holder(id, c.activity)
		victim := -1
		for i, p := range workers {
			if strings.Contains(holder, fmt.Sprintf("/%d ", p.Cmd.Process.Pid)) {
				victim = i
			}
		}
		if victim < 0 {
			t.Fatalf("%s: the call is held by %q, neither worker", c.cell, holder)
		}
		workers[victim].Kill()
		killed := time.Now()
		if !c.onThread {
			if code := run.Wait(90 * time.Second); code != 0 || !strings.Contains(run.Stdout.String(), "went on") {
				t.Fatalf("%s: exit %d\n%s%s", c.cell, code, run.Stdout, run.Stderr)
			}
		}
		e2etest.WaitUntil(t, func() bool { ok, _ := reclaimed(w.history(id), c.activity); return ok }, 60*time.Second,
			c.cell+": the call ended by the live worker", func() string { return dumpHistory(w.history(id)) })
		evs := w.history(id)
		ended := firstAfter(evs, killed, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, nil)
		t.Logf("%s: kill to the %s reported ended %v", c.cell, c.activity, ended.Sub(killed).Round(time.Millisecond))
		if d := ended.Sub(killed); ended.IsZero() || d > 10*time.Second {
			t.Errorf("%s: the %s was ended %v after the kill, want within seconds (its heartbeat timeout is minutes)", c.cell, c.activity, d)
		}
		workers[victim], _ = w.Worker()
	}
}
