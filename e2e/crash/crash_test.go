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

// A model call in flight when the whole dev process (server + worker) is
// SIGKILLed completes after a restart, and no item appears twice.
func TestCrashDuringModelCallResumes(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo first-step"},
		{DelayMs: 4000, Text: "slow answer arrived"},
	}}}})
	dev := e.StartDev()
	run := e.Exec("--json", "do the thing")
	// Kill while the second model call is in flight (in its delay).
	e2etest.WaitUntil(t, func() bool { return e.Model.Server.ArrivalsContaining("first-step") > 0 }, 60*time.Second,
		"the second model call", func() string { return run.Stderr.String() })
	if len(e.Model.Server.RequestsContaining("first-step")) > 0 {
		t.Fatal("the slow call was answered before the kill; the test would prove nothing")
	}
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstdout:\n%s\nstderr:\n%s", code, run.Stdout, run.Stderr)
	}
	evs := e2etest.JSONLines(t, run.Stdout.String())
	items := e2etest.CompletedItems(evs)
	seen := map[string]bool{}
	for _, it := range items {
		id := it["id"].(string)
		if seen[id] {
			t.Errorf("item %s completed twice", id)
		}
		seen[id] = true
	}
	last := evs[len(evs)-1]
	if last["type"] != "turn.completed" {
		t.Fatalf("last event %v, want turn.completed", last)
	}
	if got := items[len(items)-1]["text"]; got != "slow answer arrived" {
		t.Fatalf("final message %v", got)
	}
	commands := 0
	for _, it := range items {
		if it["type"] == "command_execution" {
			commands++
		}
	}
	if commands != 1 {
		t.Fatalf("want exactly one command item, got %d: %v", commands, items)
	}
	if n := e.Model.Server.ArrivalsContaining("first-step"); n < 2 {
		t.Fatalf("the interrupted model call was not retried (%d attempts)", n)
	}
}

// A shell command running when the dev process is SIGKILLed is not run
// again after the restart: its item ends as interrupted, the model is told
// the outcome is unknown, and the turn goes on.
func TestCrashDuringShellCommandIsNotRerun(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo start >> runs.txt; sleep 8; echo end >> runs.txt"},
		{Text: "recovered after the crash"},
	}}}})
	runs := filepath.Join(e.Work, "runs.txt")
	dev := e.StartDev()
	run := e.Exec("--json", "run the long command")
	e2etest.WaitUntil(t, func() bool { b, _ := os.ReadFile(runs); return strings.Contains(string(b), "start") }, 60*time.Second,
		"the command to start", func() string { return run.Stderr.String() })
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstdout:\n%s\nstderr:\n%s", code, run.Stdout, run.Stderr)
	}
	b, _ := os.ReadFile(runs)
	if got := strings.Count(string(b), "start"); got != 1 {
		t.Fatalf("command started %d times, want 1 (runs.txt: %q)", got, b)
	}
	if strings.Contains(string(b), "end") {
		t.Fatalf("the killed command went on running after its worker died: %q", b)
	}
	told := e.Model.Server.RequestsContaining("NOT run again")
	if len(told) == 0 {
		t.Fatalf("the model was not told the command was interrupted")
	}
	items := e2etest.CompletedItems(e2etest.JSONLines(t, run.Stdout.String()))
	var cmd map[string]any
	for _, it := range items {
		if it["type"] == "command_execution" {
			cmd = it
		}
	}
	if cmd == nil || !strings.Contains(cmd["aggregated_output"].(string), "interrupted") {
		t.Fatalf("command item does not say interrupted: %v", cmd)
	}
	if cmd["status"] != "failed" {
		t.Errorf("an interrupted command shows status %v, want failed (as in every front end)", cmd["status"])
	}
	if got := items[len(items)-1]["text"]; got != "recovered after the crash" {
		t.Fatalf("final message %v", got)
	}
}

// Killing dev between turns loses nothing: after a restart, `exec resume`
// continues the thread and the model receives the whole history.
func TestResumeAfterRestartKeepsHistory(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Steps: []fakemodel.Step{{Shell: "echo turn-one-output"}, {Text: "first turn done"}}},
		{Steps: []fakemodel.Step{{Text: "second turn done"}}},
	}})
	dev := e.StartDev()
	run := e.Exec("--json", "first prompt alpha")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	run2 := e.Exec("--json", "resume", id, "second prompt beta")
	if code := run2.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec resume exited %d: %s", code, run2.Stderr)
	}
	evs := e2etest.JSONLines(t, run2.Stdout.String())
	if got := e2etest.ThreadIDOf(t, evs); got != id {
		t.Fatalf("resumed thread id %s, want %s", got, id)
	}
	last, ok := e.Model.Server.LastRequest()
	if !ok {
		t.Fatal("no request recorded")
	}
	body := string(last.Body)
	for _, want := range []string{"first prompt alpha", "turn-one-output", "first turn done", "second prompt beta"} {
		if !strings.Contains(body, want) {
			t.Errorf("resumed model call lacks %q", want)
		}
	}
	if items := e2etest.CompletedItems(evs); items[len(items)-1]["text"] != "second turn done" {
		t.Fatalf("final message %v", items[len(items)-1])
	}
}
