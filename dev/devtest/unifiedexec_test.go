package devtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// toolOutputs are the function_call_output texts of a Responses request,
// in order.
func toolOutputs(t *testing.T, body json.RawMessage) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range req.Input {
		if it.Type != "function_call_output" {
			continue
		}
		var s string
		if json.Unmarshal(it.Output, &s) != nil {
			s = string(it.Output)
		}
		out = append(out, s)
	}
	return out
}

// A session lives across steps and turns: exec_command starts a
// terminal program that keeps running (the model gets session 1000),
// another command runs meanwhile, write_stdin in the next turn talks to
// it and stops it; the bad calls (a session that ended, one that never
// existed, a wait out of range, typing into a session without a terminal)
// are results the model reads. Archiving the thread ends a session left
// open.
func TestUnifiedExecSessionLifecycle(t *testing.T) {
	marker := "uexec-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	server := `echo server-up; while read l; do echo "got:$l"; [ "$l" = stop ] && exit 4; done`
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "start", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": server, "tty": true, "yield_time_ms": 1000})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": "echo quick; exit 3", "max_output_tokens": -5})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": "sleep 30; echo " + marker, "yield_time_ms": 300})}},
			{Text: "started"},
		}},
		{Match: "talk", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "ping\n", "yield_time_ms": 2000})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1002, "chars": "x\n", "yield_time_ms": 10})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "stop\n", "yield_time_ms": 5000})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 4242, "chars": "hi"})}},
			{Text: "talked"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "uexec"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	id, res := w.RunTurn(ctx, cfg, "start")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn 1 %s: %s", res.Status, res.Error)
	}
	outs := toolOutputs(t, w.Model.Server.Requests()[3].Body)
	if len(outs) != 3 {
		t.Fatalf("outputs: %q", outs)
	}
	for i, want := range [][]string{
		{"Chunk ID: ", "Wall time: ", "Process running with session ID 1000\n", "Original token count: ", "Output:\n", "server-up"},
		{"Note: max_output_tokens -5 is not positive; used 10000.", "Process exited with code 3\n", "Output:\nquick\n"},
		{"Process running with session ID 1002\n"},
	} {
		for _, s := range want {
			if !strings.Contains(outs[i], s) {
				t.Errorf("output %d does not have %q:\n%s", i, s, outs[i])
			}
		}
	}
	if len(res.ExecSessions) != 2 || res.ExecSessions[0].ID != 1000 || res.ExecSessions[0].Queue == "" {
		t.Fatalf("sessions after turn 1: %+v", res.ExecSessions)
	}

	resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	if res = w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted {
		t.Fatalf("turn 2 %s: %s", res.Status, res.Error)
	}
	reqs := w.Model.Server.Requests()
	outs = toolOutputs(t, reqs[len(reqs)-1].Body)[3:]
	for i, want := range [][]string{
		{"Process running with session ID 1000", "got:ping"},
		{"Note: yield_time_ms 10 is outside 250-30000 ms; used 250 ms.", "session 1002 was started without tty, so its stdin is closed"},
		{"Process exited with code 4\n", "got:stop"},
		{"no open session has ID 1000", "Open sessions: 1002."},
		{"no open session has ID 4242"},
	} {
		for _, s := range want {
			if !strings.Contains(outs[i], s) {
				t.Errorf("turn 2 output %d does not have %q:\n%s", i, s, outs[i])
			}
		}
	}
	if len(res.ExecSessions) != 1 || res.ExecSessions[0].ID != 1002 {
		t.Fatalf("sessions after turn 2: %+v", res.ExecSessions)
	}
	// Typing into the terminal is logged against the item that started
	// the session (app-server clients get terminalInteraction from it).
	var typed []string
	for _, e := range readAll(t, w, resp.TurnID).Events {
		if e.Type == workflows.EventTerminalInteraction {
			if e.Item == nil || e.Item.ProcessID != "1000" || e.Item.ID == "" {
				t.Fatalf("terminal interaction without its session's item: %+v", e)
			}
			typed = append(typed, e.Stdin)
		}
	}
	if strings.Join(typed, "|") != "ping\n|stop\n" {
		t.Errorf("logged terminal input %q", typed)
	}
	sleeper := findProcess(t, marker)
	if sleeper == 0 {
		t.Fatal("the open session's sleep is not running")
	}
	if err := threads.Archive(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	waitGone(t, sleeper)
}

// findProcess is the pid of a process whose command line has marker (0:
// none).
func findProcess(t *testing.T, marker string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		if strings.Contains(string(b), marker) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			return pid
		}
	}
	return 0
}

// waitGone waits (bounded) until process pid has exited.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An exec_command's output reaches a reader in another client while the
// call waits, under the call id of its command item, as a one-shot
// command's does.
func TestUnifiedExecOutputIsLive(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{
			"cmd": "for i in 1 2 3 4 5 6; do echo line$i; sleep 0.3; done", "yield_time_ms": 10000})}},
		{Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "uexec-live"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "uexec-live-thread"
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "stream"})
	if err != nil {
		t.Fatal(err)
	}
	live := threads.NewLiveOutput(w.Dial(), resp.TurnID)
	ended := make(chan workflows.TurnResult, 1)
	go func() { ended <- w.WaitTurn(ctx, id, resp.TurnID) }()
	var got strings.Builder
	calls := map[string]bool{}
	var res workflows.TurnResult
poll:
	for {
		select {
		case res = <-ended:
			break poll
		case <-time.After(50 * time.Millisecond):
		}
		chunks, err := live.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chunks {
			got.Write(ch.Data)
			calls[ch.CallID] = true
		}
	}
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	if !strings.Contains(got.String(), "line2") || len(calls) != 1 || calls[""] {
		t.Fatalf("live output %q under calls %v", got.String(), calls)
	}
}

// exec_command goes through the approval policy as shell does: an
// escalation under "never" is refused, nothing runs, and the turn goes
// on. (Commands inside the sandbox need the helper, which this test
// binary is not: the built binary's tests run them.)
func TestExecCommandIsJudgedByTheApprovalPolicy(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": "touch escalated.txt",
			"sandbox_permissions": "require_escalated", "justification": "needs it", "prefix_rule": []string{"touch"}})}},
		{Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "uexec-approval"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.SandboxMode, cfg.ApprovalPolicy = "workspace-write", "never"
	_, res := w.RunTurn(ctx, cfg, "touch")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "done" {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	reqs := w.Model.Server.Requests()
	if outs := toolOutputs(t, reqs[len(reqs)-1].Body); len(outs) != 1 || !strings.HasPrefix(outs[0], "refused: ") {
		t.Fatalf("outputs %q", outs)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "escalated.txt")); err == nil {
		t.Error("the refused command ran")
	}
}
