package automation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// An automation every 2 s runs its prompt as turns of its own thread, at
// least twice; it goes on firing after the dev server (Temporal, its
// SQLite and the worker) is SIGKILLed and started again; paused, it
// stops.
func TestAutomationFiresSurvivesAKillAndStopsWhenPaused(t *testing.T) {
	e := &env{e2etest.NewEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "tick handled"}}}}})}
	dev := e.StartDev()
	out := e.must("add", "tick", "--every", "2s", "say tick")
	if !strings.Contains(out, "automation tick added: every 2s") {
		t.Fatalf("add said %q", out)
	}
	// Bad input is refused clearly and changes nothing.
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"add", "tick", "--every", "2s", "again"}, 1, "an automation with this name exists"},
		{[]string{"add", "Bad Name", "--every", "2s", "x"}, 2, "bad automation name"},
		{[]string{"add", "both", "--every", "2s", "--cron", "* * * * *", "x"}, 1, "either an interval"},
		{[]string{"show", "nope"}, 1, "no such automation: nope"},
		{[]string{"pause", "nope"}, 1, "no such automation: nope"},
	} {
		code, o, errOut := e.cli(tc.args...)
		if code != tc.code || !strings.Contains(o+errOut, tc.says) {
			t.Fatalf("%v: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.says, o, errOut)
		}
	}

	var a automation
	e2etest.WaitUntil(t, func() bool { a = e.show("tick"); return a.completed() >= 2 }, 90*time.Second,
		"two completed runs", func() string { return fmt.Sprintf("%+v\ndev:\n%s", a, dev.Stderr) })
	turns := map[string]bool{}
	for _, r := range a.Runs {
		if r.Status != "completed" {
			continue
		}
		if r.Result.ThreadID != "automation-tick-thread" || r.Result.FinalMessage != "tick handled" {
			t.Fatalf("run %s: %+v", r.WorkflowID, *r.Result)
		}
		turns[r.Result.TurnID] = true
	}
	if len(turns) < 2 || !turns["automation-tick-thread/turn-1"] || !turns["automation-tick-thread/turn-2"] {
		t.Fatalf("the runs are not successive turns of one thread: %v", turns)
	}
	if list := e.must("list"); !strings.Contains(list, "tick") || !strings.Contains(list, "prompt: say tick") {
		t.Fatalf("list: %s", list)
	}

	dev.Kill()
	before := a.Actions
	dev = e.StartDev()
	defer dev.Kill()
	e2etest.WaitUntil(t, func() bool { a = e.show("tick"); return a.Actions >= before+2 && a.completed() >= 2 }, 90*time.Second,
		"runs after the restart", func() string { return fmt.Sprintf("%+v\ndev:\n%s", a, dev.Stderr) })

	e.must("pause", "tick")
	e2etest.WaitUntil(t, func() bool { a = e.show("tick"); return a.Paused && !a.running() }, 60*time.Second,
		"the paused automation's last run to end", func() string { return fmt.Sprintf("%+v", a) })
	paused := a.Actions
	// Nothing to wait for: a paused schedule does nothing. Three periods
	// without a new run show it.
	time.Sleep(6 * time.Second)
	if a = e.show("tick"); a.Actions != paused {
		t.Fatalf("a paused automation ran: %d runs, %d when paused", a.Actions, paused)
	}
	e.must("resume", "tick")
	e2etest.WaitUntil(t, func() bool { a = e.show("tick"); return a.Actions > paused }, 60*time.Second,
		"a run after resume", func() string { return fmt.Sprintf("%+v", a) })
	e.must("remove", "tick")
	if list := e.must("list"); strings.Contains(list, "tick") {
		t.Fatalf("removed automation listed: %s", list)
	}
}
