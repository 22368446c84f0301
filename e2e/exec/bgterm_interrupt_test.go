package exec

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// An exec_command cut short by a SIGKILL of `interpreter dev` keeps what
// it had shown, as a shell command does: its item has a duration and the
// lines printed before the kill, exec prints them, and the model reads
// them; the command is not run again.
func TestExecCommandKilledKeepsItsOutput(t *testing.T) {
	marker := "ln-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script := `echo began >> runs.txt; for i in $(seq 1 30); do echo ` + marker + `-$i; [ $i = 12 ] && touch reached; sleep 0.2; done`
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{uexecCall("exec_command", map[string]any{"cmd": script, "yield_time_ms": 20000})}},
		{Text: "noted what it printed"},
	}}}})
	dev := e.StartDev()
	run := e.Exec("-c", "approval_policy=never", "-c", "sandbox_mode=danger-full-access", "count slowly")
	e2etest.WaitUntil(t, func() bool { _, err := os.Stat(filepath.Join(e.Work, "reached")); return err == nil },
		60*time.Second, "the command's twelfth line", func() string { return run.Stderr.String() })
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	if code := run.Wait(120 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstderr:\n%s", code, run.Stderr)
	}
	out := run.Stderr.String()
	if !strings.Contains(out, marker+"-1\n") {
		t.Errorf("exec does not show the lines printed before the kill:\n%s", out)
	}
	m := regexp.MustCompile(`\[failed · interrupted · exit \? · (\d+) ms\]`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no interrupted command line in:\n%s", out)
	}
	if ms, _ := strconv.Atoi(m[1]); ms <= 0 {
		t.Errorf("the interrupted command shows no duration: %q", m[0])
	}
	told := e.Model.Server.RequestsContaining("worker running it stopped")
	if len(told) == 0 || !strings.Contains(string(told[0].Body), marker+"-1") {
		t.Errorf("the model was not shown the output before the kill")
	}
	b, _ := os.ReadFile(filepath.Join(e.Work, "runs.txt"))
	if n := strings.Count(string(b), "began"); n != 1 {
		t.Errorf("the command ran %d times, want 1", n)
	}
}
