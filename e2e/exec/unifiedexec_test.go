package exec

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

func uexecCall(name string, args map[string]any) fakemodel.ToolCall {
	b, _ := json.Marshal(args)
	return fakemodel.ToolCall{Name: name, Arguments: b}
}

// serverScript is a long-running "server" in a terminal: it says it is
// up (and notes each start in runs.txt), answers every line it reads, and
// runs until it is interrupted. marker makes its command line unique.
func serverScript(marker string) string {
	return `echo start >> runs.txt; echo "listening ` + marker + `"; while true; do if read -r -t 1 l; then echo "got:$l"; fi; done`
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

// A turn with the built binary starts a server with exec_command (it
// prints and keeps running; the model gets session 1000), runs another
// command, talks to the server with write_stdin two steps later, and
// stops it with Ctrl-C, all inside the workspace-write sandbox.
func TestUnifiedExecServerSession(t *testing.T) {
	marker := "srv-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{uexecCall("exec_command", map[string]any{"cmd": serverScript(marker), "tty": true, "yield_time_ms": 1000})}},
		{ToolCalls: []fakemodel.ToolCall{uexecCall("exec_command", map[string]any{"cmd": "echo between"})}},
		{ToolCalls: []fakemodel.ToolCall{uexecCall("write_stdin", map[string]any{"session_id": 1000, "chars": "status\n", "yield_time_ms": 1500})}},
		{ToolCalls: []fakemodel.ToolCall{uexecCall("write_stdin", map[string]any{"session_id": 1000, "chars": "\u0003", "yield_time_ms": 5000})}},
		{Text: "server stopped"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	// Inside the workspace-write sandbox, through the helper.
	run := e.Exec("-c", "approval_policy=never", "-c", "sandbox_mode=workspace-write", "run the server")
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstderr:\n%s", code, run.Stderr)
	}
	reqs := e.Model.Server.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"Process running with session ID 1000", "listening " + marker, "between",
		"got:status", "Process exited with code 130"} {
		if !strings.Contains(last, want) {
			t.Errorf("the model was not shown %q:\n%s", want, last)
		}
	}
	if !strings.Contains(run.Stdout.String(), "server stopped") {
		t.Errorf("no final answer:\n%s", run.Stdout)
	}
	for _, want := range []string{"[running · session 1000 · ", `[session 1000 ← "status\n"]`} {
		if !strings.Contains(run.Stderr.String(), want) {
			t.Errorf("exec did not show %q:\n%s", want, run.Stderr)
		}
	}
	if pids := serverPids(marker); len(pids) > 0 {
		t.Errorf("the server still runs after Ctrl-C: %v", pids)
	}
}

// SIGKILL of the worker between exec_command and write_stdin: the server
// dies with its worker, the restarted worker does not know the session,
// and the model reads that it ended, with its last output; the server is
// never started again.
func TestUnifiedExecSessionEndsWithItsWorker(t *testing.T) {
	marker := "srv-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{uexecCall("exec_command", map[string]any{"cmd": serverScript(marker), "tty": true, "yield_time_ms": 1000})}},
		{ToolCalls: []fakemodel.ToolCall{uexecCall("exec_command", map[string]any{"cmd": "echo between"})}},
		// The model takes its time here: the worker is killed meanwhile.
		{DelayMs: 3000, ToolCalls: []fakemodel.ToolCall{uexecCall("write_stdin", map[string]any{"session_id": 1000, "chars": "status\n"})}},
		{Text: "the server is gone"},
	}}}})
	runs := filepath.Join(e.Work, "runs.txt")
	dev := e.StartDev()
	run := e.Exec("-c", "approval_policy=never", "-c", "sandbox_mode=danger-full-access", "run the server")
	// The request after the middle command carries its output.
	run.WaitFor(func() bool { return e.Model.Server.ArrivalsContaining(`Output:\nbetween`) > 0 },
		60*time.Second, "the step after the middle command")
	if len(serverPids(marker)) == 0 {
		t.Fatal("the server is not running before the kill")
	}
	dev.Kill()
	e2etest.WaitUntil(t, func() bool { return len(serverPids(marker)) == 0 }, 10*time.Second, "the server to die with its worker",
		func() string { return "" })
	dev2 := e.StartDev()
	defer dev2.Kill()
	if code := run.Wait(120 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstderr:\n%s", code, run.Stderr)
	}
	told := e.Model.Server.RequestsContaining("session 1000 ended when its worker stopped")
	if len(told) == 0 {
		t.Fatalf("the model was not told the session ended; last request:\n%s", e.Model.Server.Requests()[len(e.Model.Server.Requests())-1].Body)
	}
	if !strings.Contains(string(told[0].Body), `Its last output was:\nlistening `+marker) {
		t.Errorf("the report does not show the session's last output:\n%s", told[0].Body)
	}
	b, _ := os.ReadFile(runs)
	if n := strings.Count(string(b), "start"); n != 1 {
		t.Errorf("the server started %d times, want 1", n)
	}
	if pids := serverPids(marker); len(pids) > 0 {
		t.Errorf("a server runs after the restart: %v", pids)
	}
	if !strings.Contains(run.Stdout.String(), "the server is gone") {
		t.Errorf("the turn did not go on:\n%s", run.Stdout)
	}
}
