package automation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A command job cut off by a SIGKILL of the dev server (its worker) is
// reported interrupted once the server is back, and is not run again;
// its mcporter config goes with the next job on the host.
func TestCommandJobCutOffByAKillIsInterruptedNotRerun(t *testing.T) {
	e := &env{e2etest.NewEnv(t, &fakemodel.Script{})}
	dev := e.StartDev()
	marks := filepath.Join(e.Work, "starts")
	e.must("add", "long", "--every", "1h", "-C", e.Work, "--sandbox", "danger-full-access",
		"--command", "echo started >> "+marks+"; echo working; sleep 60")
	e.must("run", "long")
	e2etest.WaitUntil(t, func() bool { b, _ := os.ReadFile(marks); return len(b) > 0 }, 60*time.Second,
		"the job to start", func() string { return dev.Stderr.String() })
	dev.Kill()
	dev = e.StartDev()
	defer dev.Kill()
	var a automation
	e2etest.WaitUntil(t, func() bool { a = e.show("long"); return len(a.Runs) == 1 && a.Runs[0].Result != nil }, 90*time.Second,
		"the cut-off run's result", func() string { return fmt.Sprintf("%+v\ndev:\n%s", a, dev.Stderr) })
	if r := a.Runs[0].Result; r.Status != "interrupted" || !strings.Contains(r.Error, "NOT run again") {
		t.Fatalf("result: %+v", *r)
	}
	if b, _ := os.ReadFile(marks); strings.Count(string(b), "started") != 1 {
		t.Fatalf("the job ran %d times", strings.Count(string(b), "started"))
	}
	e.must("add", "next", "--every", "1h", "-C", e.Work, "--command", "true")
	e.must("run", "next")
	e2etest.WaitUntil(t, func() bool { a = e.show("next"); return len(a.Runs) == 1 && a.Runs[0].Result != nil }, 60*time.Second,
		"the next job", func() string { return fmt.Sprintf("%+v", a) })
	left, _ := os.ReadDir(filepath.Join(e.Home, "automations", "runs"))
	if len(left) != 0 {
		t.Fatalf("run directories left behind: %v", left)
	}
}
