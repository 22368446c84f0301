package webui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The Temporal Web UI that `interpreter dev` serves, looked at in a real
// browser: headless Chromium (Debian's package) driven by puppeteer-core
// (pinned in e2e/ui/package.json) through e2e/ui/check.mjs, in a fresh
// browser profile as a first-time user's. A turn with a shell command and
// a patch runs against the fake model; the check reads the workflow list,
// the turn's Timeline, Event History and User Metadata tab, including the
// summaries the UI renders as markdown in iframes.
func TestWebUIShowsTheTurn(t *testing.T) {
	chromium := findChromium(t)
	dir := uiCheckDir(t)
	shots := screenshotDir(t)

	const prompt = "tidy the ui fixtures"
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo ui-check"},
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall(`apply_patch`, `{"input":"*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch"}`)}},
		{Text: "Tidied."},
	}}}})
	uiPort, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dev := e.Start(append([]string{"dev", "--port", fmt.Sprint(e.Port), "--ui-port", fmt.Sprint(uiPort)}, e.Config()...)...)
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")

	run := e.Exec("--json", prompt)
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec: exit %d\nstdout:\n%s\nstderr:\n%s", code, run.Stdout, run.Stderr)
	}
	m := regexp.MustCompile(`"thread_id":"([^"]+)"`).FindStringSubmatch(run.Stdout.String())
	if m == nil {
		t.Fatalf("no thread id in exec output:\n%s", run.Stdout)
	}
	thread := m[1]

	want := map[string]any{
		"ui":        fmt.Sprintf("http://127.0.0.1:%d", uiPort),
		"namespace": "default",
		"chromium":  chromium,
		"shots":     shots,
		"thread":    thread,
		"turn":      thread + "/turn-1",
		// The list's columns as `interpreter dev` seeds them for a new
		// browser: the summary (prompt) and the last turn's status.
		"list": []string{"InterpreterSummary", "InterpreterStatus", "ThreadWorkflow", "TurnWorkflow",
			"thread: " + prompt, "turn 1: " + prompt, "completed"},
		// The Input box under the header opens with the turn's prompt.
		"header": []string{`{"prompt":"` + prompt + `"`, `{"status":"completed"`},
		"timeline": []string{
			"ExecHere",
			"ApplyPatch • apply_patch · note.txt",
			"turn timeout",
		},
		// Model calls and quick commands run as local activities, which
		// the Timeline labels with their type; Event History shows their
		// summaries.
		"history":  []string{"model fake-model · step 1", "exec: echo ui-check", "model fake-model · step 3"},
		"metadata": []string{"turn 1: " + prompt, "harness codex · sandbox"},
	}
	arg, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "check.mjs"), string(arg))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Web UI check failed (screenshots in %s): %v\n%s", shots, err, out)
	}
	t.Logf("%s (screenshots removed: they are kept only when the check fails)", strings.TrimSpace(string(out)))
	_ = os.RemoveAll(shots)
}

// findChromium finds Debian's chromium. In CI it must be there (.ci/run
// installs it); elsewhere the test says what to install and stops.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: .ci/run installs it with apt-get install -y chromium")
	}
	t.Skip("SKIPPED outside CI: chromium is not installed (apt-get install -y chromium, or set CHROMIUM)")
	return ""
}

var uiNpmCI struct {
	once sync.Once
	err  error
	out  []byte
}

// uiCheckDir is e2e/ui with its packages installed (npm ci from the
// committed lock file, unless done already).
func uiCheckDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e", "ui"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core", "package.json")); err == nil {
		return dir
	}
	uiNpmCI.once.Do(func() {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--prefix", dir)
		uiNpmCI.out, uiNpmCI.err = cmd.CombinedOutput()
	})
	if uiNpmCI.err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", dir, uiNpmCI.err, uiNpmCI.out)
	}
	return dir
}

// screenshotDir outlives the test (t.TempDir would not): under
// $TEST_ARTIFACTS when set, else under the system temp dir.
func screenshotDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("TEST_ARTIFACTS")
	if root == "" {
		root = filepath.Join(os.TempDir(), "interpreter-ui-screens")
	}
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
