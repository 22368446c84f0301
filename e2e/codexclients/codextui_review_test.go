package codexclients

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// reviewFindings is the fake model's review: Codex's JSON shape.
const reviewFindings = `{"findings":[{"title":"[P1] Loop runs one past the end","body":"i <= 3 reads a fourth element.","confidence_score":0.8,"priority":1,` +
	`"code_location":{"absolute_file_path":"/repo/main.go","line_range":{"start":3,"end":3}}}],` +
	`"overall_correctness":"patch is incorrect","overall_explanation":"The new loop reads past its end.","overall_confidence_score":0.7}`

// /review in the Codex TUI → "Review uncommitted changes", in a git
// repository with a change: the review runs as a turn of the thread (the
// model gets the review instructions and the target, and runs `git diff`),
// the TUI shows Codex's review banners and the findings, stays up, and
// every message of the session validates against the 0.171 schemas.
func TestCodexTUIReviewUncommittedChanges(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "Review the uncommitted changes", Steps: []fakemodel.Step{
			{Shell: "git diff"},
			{Text: reviewFindings},
		}},
	}})
	gitRepoWithChange(t, e.Work)
	dev := e.startDevNoListen()
	defer dev.Kill()
	v := e2etest.LoadSchema(t)
	path := filepath.Join(t.TempDir(), "review.jsonl")
	app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
	defer app.Kill()
	tui := startTUI(t, e, url)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "/review")
	tui.waitFor("the command's completion", func(s string) bool { return strings.Contains(s, "review my current changes") })
	// An Enter that comes while the TUI redraws its completion is lost
	// (as Shift+Tab in the plan-mode test): press it until the presets show.
	for try := 0; ; try++ {
		tui.keys("Enter")
		if waitScreen(tui, 5*time.Second, func(s string) bool { return strings.Contains(s, "Review uncommitted changes") }) {
			break
		}
		if try == 5 {
			t.Fatalf("no review presets after /review\n%s", tui.screen())
		}
	}
	tui.keys("Down")
	tui.waitFor("the second preset chosen", func(s string) bool { return strings.Contains(s, "› 2. Review uncommitted changes") })
	tui.keys("Enter")
	tui.waitFor("the review's findings", func(s string) bool {
		return strings.Contains(s, "Code review started: current changes") && strings.Contains(s, "Code review finished") &&
			strings.Contains(s, "[P1] Loop runs one past the end") && strings.Contains(s, "The new loop reads past its end.")
	})
	t.Logf("the TUI after the review:\n%s", tui.screen())
	// Still up: it takes the next prompt.
	tui.keys("-l", "still here")
	tui.waitFor("the TUI to take input after the review", func(s string) bool { return strings.Contains(s, "› still here") })
	if s := tui.screen(); strings.Contains(s, "unknown method") || strings.Contains(s, "failed") {
		t.Errorf("the TUI shows an error:\n%s", s)
	}

	reqs := e.Model.Server.RequestsContaining("Review the uncommitted changes")
	if len(reqs) != 2 {
		t.Fatalf("%d model requests carry the target, want 2 (before and after git diff)", len(reqs))
	}
	for _, want := range []string{"# Code review", "overall_correctness", "git diff"} {
		if !strings.Contains(string(reqs[0].Body), want) {
			t.Errorf("the review's model request lacks %q", want)
		}
	}
	lines := checkTranscript(t, path, v)
	if !slices.Contains(lines, "client request review/start") || !slices.Contains(lines, "server result review/start") {
		t.Errorf("no review/start answered in the transcript:\n%s", strings.Join(lines, "\n"))
	}
	out := ""
	for _, m := range readTranscript(t, path) {
		if m.Dir == "out" && strings.Contains(string(m.Msg), `"method":"item/`) && strings.Contains(string(m.Msg), "overall_confidence_score") {
			t.Errorf("the model's raw JSON reached the client: %s", m.Msg)
		}
		out += string(m.Msg) + "\n"
	}
	for _, want := range []string{`"type":"enteredReviewMode"`, `"type":"exitedReviewMode"`, `"type":"commandExecution"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the server sent no %s item", want)
		}
	}
}

// gitRepoWithChange makes dir a git repository with one commit and an
// uncommitted change.
func gitRepoWithChange(t *testing.T, dir string) {
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("package main\n\nfunc main() {}\n")
	git("add", ".")
	git("commit", "-qm", "init")
	write("package main\n\nfunc main() { for i := 0; i <= 3; i++ {} }\n")
}
