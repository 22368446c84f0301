package exec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// goalCLI runs `interpreter goal ARGS` against the env's dev server.
func (e *env) goalCLI(args ...string) (code int, stdout, stderr string) {
	e.T.Helper()
	all := append(append([]string{"goal"}, args...), e.Config()...)
	p := e.Start(append(all, "-c", "temporal.embedded=false")...)
	code = p.Wait(60 * time.Second)
	return code, p.Stdout.String(), p.Stderr.String()
}

// `exec --goal` shows the goal's first turn and the continuation turns
// the thread starts by itself, and exits 0 once the model marks the goal
// complete; `goal show` and `threads show` print it; `goal set` on the
// idle thread starts it again, `goal pause` and `goal clear` stop it.
func TestExecGoalRunsToComplete(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		// The second goal's first continuation (the first goal's prompts
		// do not name it).
		{Match: "GOAL-TWO", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("update_goal", `{"status":"blocked"}`)}},
			{Text: "I need a password"},
		}},
		{Match: "over 0 continuation turns", Steps: []fakemodel.Step{
			{Shell: "echo second >> log.txt"},
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("update_goal", `{"status":"complete"}`)}},
			{Text: "both lines written"},
		}},
		{Steps: []fakemodel.Step{{Shell: "echo first >> log.txt"}, {Text: "first line written"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--goal", "write two lines to log.txt")
	if code := run.Wait(120 * time.Second); code != 0 {
		t.Fatalf("exec --goal exited %d\nstdout:\n%s\nstderr:\n%s", code, run.Stdout, run.Stderr)
	}
	if out := run.Stdout.String(); out != "both lines written\n" {
		t.Fatalf("stdout: %q", out)
	}
	if !strings.Contains(run.Stderr.String(), "status: complete") {
		t.Fatalf("stderr does not show the goal:\n%s", run.Stderr)
	}
	log, err := os.ReadFile(filepath.Join(e.Work, "log.txt"))
	if err != nil || string(log) != "first\nsecond\n" {
		t.Fatalf("log.txt: %q %v", log, err)
	}
	m := regexp.MustCompile(`(?m)^thread (\S+) ·`).FindStringSubmatch(run.Stderr.String())
	if m == nil {
		t.Fatalf("exec named no thread:\n%s", run.Stderr)
	}
	id := m[1]
	code, out, errOut := e.threads("show", id)
	if code != 0 || !strings.Contains(out, "goal: write two lines to log.txt") || !strings.Contains(out, "status: complete") {
		t.Fatalf("threads show %q: exit %d\n%s\n%s\n(exec stderr: %s)", id, code, out, errOut, run.Stderr)
	}

	if code, out, errOut := e.goalCLI("set", id, "GOAL-TWO log in"); code != 0 || !strings.Contains(out, "status: active") {
		t.Fatalf("goal set: exit %d\n%s\n%s", code, out, errOut)
	}
	e2etest.WaitUntil(t, func() bool {
		_, out, _ := e.goalCLI("show", id)
		return strings.Contains(out, "status: blocked")
	}, 90*time.Second, "the second goal to be blocked", func() string { _, out, _ := e.goalCLI("show", id); return out })
	if code, out, _ := e.goalCLI("pause", id); code != 0 || !strings.Contains(out, "status: paused") {
		t.Fatalf("goal pause: exit %d\n%s", code, out)
	}
	if code, out, _ := e.goalCLI("clear", id); code != 0 || !strings.Contains(out, "cleared") {
		t.Fatalf("goal clear: exit %d\n%s", code, out)
	}
	if code, out, _ := e.goalCLI("show", id); code != 0 || !strings.Contains(out, "has no goal") {
		t.Fatalf("goal show after clear: exit %d\n%s", code, out)
	}
}
