package crash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A pending approval is workflow state: it survives SIGKILL of the front
// end and of the worker (with its server), is shown again to the next
// client, and the turn goes on once someone decides. A decision for an
// item that is not pending is refused and changes nothing.
func TestPendingApprovalSurvivesKills(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{DelayMs: 4000, Shell: "touch approved.txt"},
		{Text: "done after the approval"},
	}}}})
	marker := filepath.Join(e.Work, "approved.txt")
	dev := e.StartDev()
	run := e.Exec("--json", "--approval-policy", "untrusted", "make the file")
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread to start")
	thread := e2etest.JSONLines(t, run.Stdout.String())[0]["thread_id"].(string)
	// The front end dies before the approval is asked (the model is slow).
	run.Kill()

	approve := func(args ...string) *e2etest.Proc {
		all := append([]string{"approve"}, e.Config()...)
		return e.Start(append(all, args...)...)
	}
	listed := func() string {
		p := approve(thread)
		p.Wait(60 * time.Second)
		return p.Stdout.String()
	}
	e2etest.WaitUntil(t, func() bool { return strings.Contains(listed(), "touch approved.txt") }, 60*time.Second,
		"the approval to be pending", func() string { return dev.Stderr.String() })
	dev.Kill()

	dev2 := e.StartDev()
	defer dev2.Kill()
	out := listed()
	if !strings.Contains(out, "item_0") || !strings.Contains(out, "answer: interpreter approve "+thread+" item_0 --decision") {
		t.Fatalf("after the restart the approval is not shown again:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran before it was approved")
	}

	forged := approve(thread, "item_9", "--decision", "approve")
	if code := forged.Wait(60 * time.Second); code != 1 || !strings.Contains(forged.Stderr.String(), "not waiting for approval (pending: item_0)") {
		t.Fatalf("forged decision: exit %d\n%s", code, forged.Stderr)
	}
	if !strings.Contains(listed(), "item_0") {
		t.Fatal("the refused decision changed the pending approval")
	}

	ok := approve(thread, "item_0", "--decision", "approve")
	if code := ok.Wait(60 * time.Second); code != 0 {
		t.Fatalf("approve: exit %d\n%s", code, ok.Stderr)
	}
	e2etest.WaitUntil(t, func() bool { _, err := os.Stat(marker); return err == nil }, 60*time.Second,
		"the approved command to run", func() string { return dev2.Stderr.String() })
	e2etest.WaitUntil(t, func() bool { return len(e.Model.Server.RequestsContaining("Exit code: 0")) > 0 }, 60*time.Second,
		"the model to read the command's output", func() string { return dev2.Stderr.String() })
}
