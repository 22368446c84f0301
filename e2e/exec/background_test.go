package exec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// `exec --background` with the built binary: it prints the new thread's
// id and exits while the turn is still held up (its command waits for a
// file the test writes only afterwards), the turn then finishes with
// nobody attached, and `threads show` has its answer. The background run
// lists the background_job skill and not the main one; a person's turn in
// the same directory lists the main one and not the background one. With
// --json, a resume in the background prints one JSON line.
func TestExecBackground(t *testing.T) {
	gate := "gate-" + fmt.Sprint(time.Now().UnixNano())
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "prompt unattended", Steps: []fakemodel.Step{
			{Shell: "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo gate-open"},
			{Text: "unattended done"}}},
		{Match: "prompt again", Steps: []fakemodel.Step{{Text: "again done"}}},
		{Match: "prompt person", Steps: []fakemodel.Step{{Text: "person done"}}},
	}})
	if err := os.MkdirAll(filepath.Join(e.Work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sk := filepath.Join(e.Work, ".agents", "skills")
	writeTestFile(t, filepath.Join(sk, "nightly", "SKILL.md"), "---\nname: nightly\ndescription: Write the nightly report.\nankole-runtime: background_job\n---\n")
	writeTestFile(t, filepath.Join(sk, "pairing", "SKILL.md"), "---\nname: pairing\ndescription: Work along with a person.\nankole-runtime: main\n---\n")
	writeTestFile(t, filepath.Join(sk, "anywhere", "SKILL.md"), "---\nname: anywhere\ndescription: Any run.\n---\n")

	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--background", "--full-auto", "prompt unattended")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec --background exited %d: %s", code, run.Stderr)
	}
	id := strings.TrimSpace(run.Stdout.String())
	if strings.Contains(id, "\n") || id == "" {
		t.Fatalf("stdout is not one thread id: %q", run.Stdout)
	}
	if !strings.Contains(run.Stderr.String(), "runs in the background") {
		t.Errorf("stderr: %s", run.Stderr)
	}
	// exec is gone and the turn cannot have ended: its command waits for
	// the gate.
	if _, err := os.Stat(filepath.Join(e.Work, gate)); err == nil {
		t.Fatal("gate exists already")
	}
	code, out, errOut := e.threads("show", id)
	if code != 0 || !strings.Contains(out, "turn 1 · running") || !strings.Contains(out, "/turn-1 · background_job") || strings.Contains(out, "unattended done") {
		t.Fatalf("threads show while the job runs: exit %d\n%s%s", code, out, errOut)
	}
	writeTestFile(t, filepath.Join(e.Work, gate), "")
	e2etest.WaitUntil(t, func() bool {
		_, out, _ := e.threads("show", id)
		return strings.Contains(out, "agent: unattended done")
	}, 60*time.Second, "the background job to finish", func() string { _, out, _ := e.threads("show", id); return out })
	_, out, _ = e.threads("show", id)
	for _, want := range []string{"turn 1 · completed", "gate-open", "> prompt unattended"} {
		if !strings.Contains(out, want) {
			t.Errorf("threads show lacks %q:\n%s", want, out)
		}
	}
	body := e.RequestWith("prompt unattended")
	e2etest.CheckHistory(t, "the background run's request", body, "- nightly: Write the nightly report.", "- anywhere: Any run.")
	if strings.Contains(body, "- pairing:") {
		t.Error("the background run lists the main skill")
	}

	// A resume in the background, with --json: one line, the same thread.
	again := e.Exec("--background", "--json", "resume", id, "prompt again")
	if code := again.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec --background --json resume exited %d: %s", code, again.Stderr)
	}
	lines := e2etest.JSONLines(t, again.Stdout.String())
	if len(lines) != 1 || lines[0]["type"] != "thread.started" || lines[0]["thread_id"] != id || lines[0]["run_kind"] != "background_job" {
		b, _ := json.Marshal(lines)
		t.Fatalf("--json output: %s", b)
	}
	e2etest.WaitUntil(t, func() bool {
		_, out, _ := e.threads("show", id)
		return strings.Contains(out, "agent: again done")
	}, 60*time.Second, "the second background turn to finish", func() string { _, out, _ := e.threads("show", id); return out })
	if _, out, _ := e.threads("show", id); !strings.Contains(out, "/turn-1 · background_job") || !strings.Contains(out, "/turn-2 · background_job") {
		t.Errorf("threads show does not give both turns' kind:\n%s", out)
	}

	// A person's turn in the same directory.
	person := e.Exec("--json", "prompt person")
	if code := person.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, person.Stderr)
	}
	body = e.RequestWith("prompt person")
	e2etest.CheckHistory(t, "a person's request", body, "- pairing: Work along with a person.", "- anywhere: Any run.")
	if strings.Contains(body, "- nightly:") {
		t.Error("a person's turn lists the background skill")
	}
}

// With no worker polling the task queue, `exec --background` refuses at
// once (nothing would run the job, and starting it would wait for a
// worker); with -o it refuses before connecting.
func TestExecBackgroundRefusals(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{})
	e2etest.StartServer(t, e.Port)
	run := e.Exec("--background", "prompt nobody")
	if code := run.Wait(30 * time.Second); code != 1 || !strings.Contains(run.Stderr.String(), "no worker polls task queue") {
		t.Fatalf("no worker: exit %d: %s", code, run.Stderr)
	}
	run = e.Exec("--background", "-o", filepath.Join(e.Work, "last.txt"), "prompt")
	if code := run.Wait(30 * time.Second); code != 2 || !strings.Contains(run.Stderr.String(), "--output-last-message cannot be used") {
		t.Fatalf("-o: exit %d: %s", code, run.Stderr)
	}
}
