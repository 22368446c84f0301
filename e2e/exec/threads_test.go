package exec

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// threads runs `interpreter threads ARGS` against the env's dev server and
// waits for it.
func (e *env) threads(args ...string) (code int, stdout, stderr string) {
	e.T.Helper()
	all := append([]string{"threads"}, args...)
	all = append(all, e.Config()...)
	all = append(all, "-c", "temporal.embedded=false")
	p := e.Start(all...)
	code = p.Wait(60 * time.Second)
	return code, p.Stdout.String(), p.Stderr.String()
}

type listedThread struct {
	ThreadID string `json:"thread_id"`
	Title    string `json:"title"`
	Cwd      string `json:"cwd"`
	Status   string `json:"status"`
	Open     bool   `json:"open"`
}

// listThreads runs `threads list --json` with extra flags.
func (e *env) listThreads(args ...string) []listedThread {
	e.T.Helper()
	code, out, errOut := e.threads(append([]string{"list", "--json"}, args...)...)
	if code != 0 {
		e.T.Fatalf("threads list %v: exit %d: %s", args, code, errOut)
	}
	var ts []listedThread
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var t listedThread
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			e.T.Fatalf("threads list: not JSON: %q", line)
		}
		ts = append(ts, t)
	}
	return ts
}

func findThread(ts []listedThread, id string) *listedThread {
	for i := range ts {
		if ts[i].ThreadID == id {
			return &ts[i]
		}
	}
	return nil
}

// The threads commands read a thread from visibility and workflow queries:
// list (with filters), show, events (also following a running turn), and
// archive, after which the thread leaves the list and takes no more turns.
func TestThreadsCommands(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "alpha", Steps: []fakemodel.Step{{Shell: "echo hello-threads"}, {Text: "first done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{DelayMs: 10000, Text: "second done"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "first prompt alpha")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))

	// Visibility is eventually consistent: wait for the finished turn's status.
	var listed *listedThread
	e2etest.WaitUntil(t, func() bool {
		listed = findThread(e.listThreads(), id)
		return listed != nil && listed.Status == "completed"
	}, 30*time.Second, "the thread to be listed as completed", func() string { return "" })
	if listed.Title != "first prompt alpha" || !listed.Open {
		t.Fatalf("listed thread %+v", listed)
	}
	if findThread(e.listThreads("--cwd", e.Work), id) == nil {
		t.Fatalf("--cwd %s does not list the thread", e.Work)
	}
	if findThread(e.listThreads("--cwd", t.TempDir()), id) != nil {
		t.Fatalf("--cwd of another directory lists the thread")
	}
	if findThread(e.listThreads("--status", "failed"), id) != nil {
		t.Fatalf("--status failed lists a completed thread")
	}
	if code, _, errOut := e.threads("list", "--status", "bogus"); code != 2 || !strings.Contains(errOut, "invalid --status") {
		t.Fatalf("bad --status: exit %d: %s", code, errOut)
	}
	code, out, errOut := e.threads("list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "THREAD") {
		t.Fatalf("threads list: exit %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = e.threads("show", id)
	if code != 0 {
		t.Fatalf("threads show: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"thread " + id + " · open", "turn 1 · completed · 2 steps", "> first prompt alpha",
		"$ echo hello-threads  [completed · exit 0]", "agent: first done", "model fake-model (provider fake)"} {
		if !strings.Contains(out, want) {
			t.Errorf("threads show lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := e.threads("show", "no-such-thread"); code != 1 || !strings.Contains(errOut, "thread not found: no-such-thread") {
		t.Fatalf("show of an unknown thread: exit %d: %s", code, errOut)
	}

	code, out, errOut = e.threads("events", id)
	if code != 0 {
		t.Fatalf("threads events: exit %d: %s", code, errOut)
	}
	evs := e2etest.JSONLines(t, out)
	if len(evs) < 4 || evs[0]["type"] != "turn.started" || evs[len(evs)-1]["type"] != "turn.completed" {
		t.Fatalf("events of turn 1: %v", evs)
	}
	for i, ev := range evs {
		if ev["seq"] != float64(i+1) || ev["turn_id"] != id+"/turn-1" {
			t.Fatalf("event %d: %v", i, ev)
		}
	}

	// A second, slow turn (each command here starts a big binary, slow on a
	// loaded machine): follow it, and archiving is refused meanwhile.
	second := e.Exec("--json", "resume", id, "second prompt beta")
	second.WaitFor(func() bool { return strings.Contains(second.Stdout.String(), "turn.started") }, 60*time.Second,
		"the second turn to start")
	follow := e.Start(append(append([]string{"threads", "events", "--follow", id}, e.Config()...), "-c", "temporal.embedded=false")...)
	if code, out, errOut := e.threads("archive", id); code != 1 || !strings.Contains(errOut, "is running turn") {
		t.Fatalf("archive of a running thread: exit %d: %s %s", code, out, errOut)
	}
	if code := follow.Wait(60 * time.Second); code != 0 {
		t.Fatalf("threads events --follow: exit %d: %s", code, follow.Stderr)
	}
	fevs := e2etest.JSONLines(t, follow.Stdout.String())
	last := fevs[len(fevs)-1]
	if last["type"] != "turn.completed" || last["turn_id"] != id+"/turn-2" {
		t.Fatalf("--follow did not end with the second turn's end: %v", last)
	}
	if !strings.Contains(follow.Stdout.String(), "second done") {
		t.Fatalf("--follow missed the answer that came after it started:\n%s", follow.Stdout)
	}
	if code := second.Wait(60 * time.Second); code != 0 {
		t.Fatalf("second turn: exit %d: %s", code, second.Stderr)
	}

	if code, out, errOut := e.threads("archive", id); code != 0 || !strings.Contains(out, "archived "+id) {
		t.Fatalf("archive: exit %d: %s %s", code, out, errOut)
	}
	e2etest.WaitUntil(t, func() bool { return findThread(e.listThreads(), id) == nil }, 30*time.Second,
		"the archived thread to leave the list", func() string { return "" })
	if a := findThread(e.listThreads("--status", "archived"), id); a == nil || a.Status != "archived" || a.Open {
		t.Fatalf("--status archived: %+v", a)
	}
	resumed := e.Exec("resume", id, "third prompt")
	if code := resumed.Wait(60 * time.Second); code != 1 || !strings.Contains(resumed.Stderr.String(), "is archived") {
		t.Fatalf("resume of an archived thread: exit %d: %s", code, resumed.Stderr)
	}
	code, out, errOut = e.threads("show", id)
	if code != 0 || !strings.Contains(out, "· archived") || !strings.Contains(out, "turn 2 · completed") {
		t.Fatalf("show of an archived thread: exit %d\n%s\n%s", code, out, errOut)
	}
}

// `threads compact` summarizes a thread with the configured compact_prompt;
// the next turn sends the recent user messages and the summary instead of
// the old transcript.
func TestThreadsCompact(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "COMPACT-NOW", Steps: []fakemodel.Step{{Text: "SUMMARY-XYZ of the thread"}}},
		{Match: "alpha", Steps: []fakemodel.Step{{Shell: "echo turn-one-output"}, {Text: "first done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{Text: "second done"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "-c", `compact_prompt="COMPACT-NOW: summarize"`, "first prompt alpha")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	code, out, errOut := e.threads("compact", id)
	if code != 0 || !strings.Contains(out, "compacted "+id) || !strings.Contains(out, "SUMMARY-XYZ") {
		t.Fatalf("threads compact: exit %d\n%s\n%s", code, out, errOut)
	}
	if asked := e.Model.Server.RequestsContaining("COMPACT-NOW: summarize"); len(asked) != 1 {
		t.Fatalf("%d compaction requests with the configured prompt, want 1", len(asked))
	}
	second := e.Exec("--json", "resume", id, "second prompt beta")
	if code := second.Wait(60 * time.Second); code != 0 {
		t.Fatalf("resume exited %d: %s", code, second.Stderr)
	}
	last, _ := e.Model.Server.LastRequest()
	body := string(last.Body)
	if !strings.Contains(body, "SUMMARY-XYZ") || !strings.Contains(body, "first prompt alpha") || strings.Contains(body, "turn-one-output") {
		t.Fatalf("the turn after compaction sent:\n%s", body)
	}
	if code, _, errOut := e.threads("compact", "no-such-thread"); code != 1 || !strings.Contains(errOut, "thread not found") {
		t.Fatalf("compact of an unknown thread: exit %d: %s", code, errOut)
	}
}
