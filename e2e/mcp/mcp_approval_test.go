package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func mcpApprovalScript() *fakemodel.Script {
	return &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "approve me", Steps: []fakemodel.Step{{Shell: "touch approved.txt && echo made-approved"}, {Text: "approved done"}}},
		{Match: "approve later", Steps: []fakemodel.Step{{Shell: "touch later.txt && echo made-later"}, {Text: "later done"}}},
		{Match: "after restart", Steps: []fakemodel.Step{{Text: "reply answer"}}},
	}}
}

// elicitations are the elicitation/create params a client received.
func (r *mcpRun) elicitations() []map[string]any {
	var out []map[string]any
	for _, l := range r.snapshot() {
		if p, ok := l["elicitation"].(map[string]any); ok {
			out = append(out, p)
		}
	}
	return out
}

func checkExecElicitation(t *testing.T, r *mcpRun, p map[string]any, threadID, command, cwd string) {
	t.Helper()
	want := "Allow running `" + command + "` in `" + cwd + "`?"
	if msg, _ := p["message"].(string); !strings.HasPrefix(msg, want) {
		t.Errorf("elicitation message %q, want it to start with %q", msg, want)
	}
	if p["codex_elicitation"] != "exec-approval" || p["codex_command"] != command || p["codex_cwd"] != cwd ||
		p["codex_call_id"] == nil || (threadID != "" && p["threadId"] != threadID) {
		t.Errorf("elicitation params %v, want exec-approval of %q in %s on thread %s\n%s", p, command, cwd, threadID, r.diag())
	}
}

// The TypeScript SDK client declares elicitation; a codex call under the
// untrusted policy asks it before running a command, the client accepts,
// the command runs and the answer comes back.
func TestMCPServerApprovalThroughElicitation(t *testing.T) {
	e := newEnv(t, mcpApprovalScript())
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()

	run := e.startMCPClientElicit(map[string]any{"action": "accept", "content": map[string]any{}},
		mcpCall("codex", map[string]any{"prompt": "approve me", "approval-policy": "untrusted", "sandbox": "workspace-write"}))
	res := run.step(0, 2*time.Minute)
	threadID, content, _ := callResult(t, run, res)
	if content != "approved done" {
		t.Errorf("codex: content %q, want %q", content, "approved done")
	}
	asked := run.elicitations()
	if len(asked) != 1 {
		t.Fatalf("%d elicitations, want 1\n%s", len(asked), run.diag())
	}
	checkExecElicitation(t, run, asked[0], threadID, "touch approved.txt && echo made-approved", e.Work)
	if _, err := os.Stat(filepath.Join(e.Work, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	e2etest.CheckHistory(t, "the model request after the command", e.RequestWith("made-approved"), "approve me", "made-approved")
	run.finish(time.Minute)
}

// The server is SIGKILLed while its elicitation is pending; the approval
// waits in the workflow; a new server asked codex-reply on the thread asks
// again, the client accepts, the command runs, then the new prompt.
func TestMCPServerElicitationAskedAgainAfterSIGKILL(t *testing.T) {
	e := newEnv(t, mcpApprovalScript())
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()

	run1 := e.startMCPClientElicit("never",
		mcpCall("codex", map[string]any{"prompt": "approve later", "approval-policy": "untrusted", "sandbox": "workspace-write"}))
	e2etest.WaitUntil(t, func() bool { return len(run1.elicitations()) == 1 }, 2*time.Minute, "the first elicitation", run1.diag)
	first := run1.elicitations()[0]
	threadID, _ := first["threadId"].(string)
	checkExecElicitation(t, run1, first, threadID, "touch later.txt && echo made-later", e.Work)
	pid := int(run1.find("the server pid", time.Second, func(l map[string]any) bool { return l["pid"] != nil })["pid"].(float64))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing mcp-server %d: %v", pid, err)
	}
	if killed := run1.step(0, time.Minute); killed["error"] == nil {
		t.Fatalf("the killed call answered: %v", killed)
	}
	run1.finish(time.Minute)
	if _, err := os.Stat(filepath.Join(e.Work, "later.txt")); err == nil {
		t.Fatal("the command ran without an approval")
	}

	run2 := e.startMCPClientElicit(map[string]any{"action": "accept", "content": map[string]any{}},
		mcpCall("codex-reply", map[string]any{"threadId": threadID, "prompt": "after restart"}))
	reply := run2.step(0, 2*time.Minute)
	gotThread, content, _ := callResult(t, run2, reply)
	if gotThread != threadID || content != "reply answer" {
		t.Errorf("codex-reply: threadId %q content %q, want %s / reply answer", gotThread, content, threadID)
	}
	asked := run2.elicitations()
	if len(asked) != 1 {
		t.Fatalf("the new server asked %d times, want once\n%s", len(asked), run2.diag())
	}
	checkExecElicitation(t, run2, asked[0], threadID, "touch later.txt && echo made-later", e.Work)
	if asked[0]["codex_call_id"] != first["codex_call_id"] {
		t.Errorf("asked about %v, then %v: want the same pending call", first["codex_call_id"], asked[0]["codex_call_id"])
	}
	if _, err := os.Stat(filepath.Join(e.Work, "later.txt")); err != nil {
		t.Errorf("the command approved after the restart did not run: %v", err)
	}
	e2etest.CheckHistory(t, "the model request of the reply", e.RequestWith("after restart"), "approve later", "made-later", "later done", "after restart")
	run2.finish(time.Minute)
}
