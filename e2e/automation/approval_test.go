package automation

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A run on a fresh thread (--new-thread) whose command needs an approval
// says so in `automation show`, with the command to answer it; answered
// with `interpreter approve`, the run completes.
func TestAutomationRunWaitingForApprovalSaysSo(t *testing.T) {
	e := &env{e2etest.NewEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "ASK", Steps: []fakemodel.Step{
		{Shell: "touch approved.txt"}, {Text: "asked and done"},
	}}}})}
	dev := e.StartDev()
	defer dev.Kill()
	e.must("add", "ask", "--every", "1h", "--new-thread", "--sandbox", "read-only", "--approval-policy", "untrusted", "ASK for it")
	e.must("run", "ask")
	var out string
	e2etest.WaitUntil(t, func() bool { _, out, _ = e.cli("show", "ask"); return strings.Contains(out, "waiting for approval") }, 60*time.Second,
		"the run to wait for an approval", func() string { return fmt.Sprintf("%s\ndev:\n%s", out, dev.Stderr) })
	a := e.show("ask")
	if len(a.Runs) != 1 || a.Runs[0].Status != "running" || !strings.HasPrefix(a.Runs[0].ThreadID, "automation-ask-") || a.Runs[0].ThreadID == "automation-ask-thread" {
		t.Fatalf("run: %+v", a.Runs)
	}
	thread := a.Runs[0].ThreadID
	if !strings.Contains(out, "interpreter approve "+thread) {
		t.Fatalf("show does not say how to answer:\n%s", out)
	}
	p := e.Start(append(append([]string{"approve"}, e.Config()...), "-c", "temporal.embedded=false", thread)...)
	if code := p.Wait(30 * time.Second); code != 0 || !strings.Contains(p.Stdout.String(), "touch approved.txt") {
		t.Fatalf("approve (list) exited %d:\n%s\n%s", code, p.Stdout, p.Stderr)
	}
	item := regexp.MustCompile(`item_[0-9]+`).FindString(p.Stdout.String())
	p = e.Start(append(append([]string{"approve"}, e.Config()...), "-c", "temporal.embedded=false", thread, item, "--decision", "approve")...)
	if code := p.Wait(30 * time.Second); code != 0 {
		t.Fatalf("approve exited %d:\n%s\n%s", code, p.Stdout, p.Stderr)
	}
	e2etest.WaitUntil(t, func() bool { a = e.show("ask"); return a.completed() == 1 }, 60*time.Second,
		"the run to complete", func() string { return fmt.Sprintf("%+v", a) })
	if r := a.Runs[0].Result; r.ThreadID != thread || r.FinalMessage != "asked and done" {
		t.Fatalf("result: %+v", *r)
	}
}
