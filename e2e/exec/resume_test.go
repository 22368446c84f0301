package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// exists tells whether a file is there.
func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// An exec SIGKILLed while its turn runs a shell command leaves the turn
// running; `exec resume ID PROMPT` follows that turn to its end, showing
// what is left of it, then runs the prompt as the next turn, whose model
// request carries the first turn's end.
func TestExecResumeFollowsTheRunningTurnThenRunsThePrompt(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "long", Steps: []fakemodel.Step{
			// The command waits for the test to let it go, so it is
			// surely running when the resume comes.
			{Shell: "echo start >> runs.txt; while [ ! -e release ]; do sleep 0.05; done; echo released-output"},
			{Text: "first turn done"},
		}},
		{Match: "next", Steps: []fakemodel.Step{{Text: "second turn done"}}},
	}})
	runs := filepath.Join(e.Work, "runs.txt")
	dev := e.StartDev()
	defer dev.Kill()
	first := e.Exec("-c", "approval_policy=never", "run the long command")
	first.WaitFor(func() bool { b, _ := os.ReadFile(runs); return strings.Contains(string(b), "start") }, 60*time.Second, "the command to start")
	thread := e2etest.ThreadOf(t, first.Stderr.String())
	first.Kill()

	resume := e.Exec("resume", thread, "next")
	resume.WaitFor(func() bool { return strings.Contains(resume.Stderr.String(), "following it to its end") }, 60*time.Second,
		"exec resume to follow the running turn")
	if err := os.WriteFile(filepath.Join(e.Work, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := resume.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec resume exited %d\nstdout:\n%s\nstderr:\n%s", code, resume.Stdout, resume.Stderr)
	}
	errOut := resume.Stderr.String()
	for _, want := range []string{"$ echo start", "released-output", "agent: first turn done", "[turn completed", "agent: second turn done"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("exec resume did not show %q:\n%s", want, errOut)
		}
	}
	if i, j := strings.Index(errOut, "first turn done"), strings.Index(errOut, "second turn done"); i < 0 || j < i {
		t.Errorf("the turns are not shown in order:\n%s", errOut)
	}
	if got := resume.Stdout.String(); got != "second turn done\n" {
		t.Errorf("stdout %q, want the new turn's answer only", got)
	}
	reqs := e.Model.Server.RequestsContaining("next")
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), "first turn done") {
		t.Fatalf("the model was not asked the next prompt with the first turn's end (%d requests)", len(reqs))
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "start") != 1 {
		t.Fatalf("the command ran %d times: %q", strings.Count(string(b), "start"), b)
	}
}

// An approval asked while no front end was there (its exec was SIGKILLed)
// is asked by `exec resume ID` on a terminal, which follows the turn to
// its end once answered.
func TestExecResumeAsksThePendingApprovalOnATerminal(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{DelayMs: 4000, Shell: "touch approved.txt"},
		{Text: "done after the approval"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "--approval-policy", "untrusted", "make the file")
	// The front end dies before the approval is asked (the model is slow).
	// The model call can reach the model before exec has printed the
	// thread's id, so both are awaited.
	e2etest.WaitUntil(t, func() bool {
		return e.Model.Server.ArrivalsContaining("make the file") > 0 && strings.Contains(run.Stdout.String(), `"thread.started"`)
	}, 60*time.Second, "the model call and thread.started", func() string { return run.Stderr.String() })
	thread := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	run.Kill()
	e2etest.WaitUntil(t, func() bool {
		code, out, _ := e.approveList(thread)
		return code == 0 && strings.Contains(out, "touch approved.txt")
	}, 60*time.Second, "the approval to be pending", func() string { return dev.Stderr.String() })

	master, tty := e2etest.OpenPTY(t)
	all := append([]string{"exec"}, e.Config()...)
	resume := e.StartStdin(tty, append(all, "-c", "temporal.embedded=false", "resume", thread)...)
	resume.WaitFor(func() bool { return strings.Contains(resume.Stderr.String(), "Approve item_0?") }, 60*time.Second,
		"exec resume to ask the approval")
	if _, err := master.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if code := resume.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec resume exited %d\nstdout:\n%s\nstderr:\n%s", code, resume.Stdout, resume.Stderr)
	}
	if !exists(filepath.Join(e.Work, "approved.txt")) {
		t.Fatal("the approved command did not run")
	}
	if got := resume.Stdout.String(); got != "done after the approval\n" {
		t.Fatalf("stdout %q\nstderr:\n%s", got, resume.Stderr)
	}
	if strings.Contains(resume.Stderr.String(), "reading the prompt") {
		t.Fatalf("exec resume asked for a prompt although it only followed:\n%s", resume.Stderr)
	}
}

// `threads interrupt ID` ends the running turn as interrupted; with no
// turn running, or for an unknown thread, it says so and exits 1.
func TestThreadsInterruptEndsTheRunningTurn(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo start >> runs.txt; sleep 60"},
		{Text: "never reached"},
	}}}})
	runs := filepath.Join(e.Work, "runs.txt")
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("-c", "approval_policy=never", "--json", "run forever")
	run.WaitFor(func() bool { b, _ := os.ReadFile(runs); return strings.Contains(string(b), "start") }, 60*time.Second, "the command to start")
	thread := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))

	code, out, errOut := e.threads("interrupt", thread)
	if code != 0 || !strings.Contains(out, thread+"/turn-1: interrupted") {
		t.Fatalf("threads interrupt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code := run.Wait(60 * time.Second); code != 1 {
		t.Fatalf("exec exited %d, want 1 (its turn was interrupted)\n%s", code, run.Stdout)
	}
	evs := e2etest.JSONLines(t, run.Stdout.String())
	if last := evs[len(evs)-1]; last["type"] != "turn.failed" || !strings.Contains(last["error"].(map[string]any)["message"].(string), "interrupt") {
		t.Fatalf("exec's last event %v, want turn.failed (interrupted)", last)
	}
	if len(e.Model.Server.RequestsContaining("never reached")) > 0 {
		t.Fatal("the turn went on after the interrupt")
	}

	code, _, errOut = e.threads("interrupt", thread)
	if code != 1 || !strings.Contains(errOut, "runs no turn") {
		t.Fatalf("interrupting an idle thread: exit %d\n%s", code, errOut)
	}
	code, _, errOut = e.threads("interrupt", "no-such-thread")
	if code != 1 || !strings.Contains(errOut, "thread not found: no-such-thread") {
		t.Fatalf("interrupting an unknown thread: exit %d\n%s", code, errOut)
	}
}

// approveList runs `interpreter approve THREAD` (the pending approvals).
func (e *env) approveList(thread string) (int, string, string) {
	p := e.Start(append(append([]string{"approve"}, e.Config()...), thread)...)
	code := p.Wait(60 * time.Second)
	return code, p.Stdout.String(), p.Stderr.String()
}
