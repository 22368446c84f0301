package exec

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The `exec --json` transcript of a scripted turn, pinned as a golden file
// (thread id and token counts normalised): the shape Codex's SDK parses.
func TestExecJSONTranscriptGolden(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Reasoning: "check first", Text: "Checking.", ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall(`shell`, `{"command":["echo","hi"]}`)}},
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall(`apply_patch`, `{"input":"*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch"}`)}},
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall(`update_plan`, `{"plan":[{"step":"say hi","status":"completed"}]}`)}},
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall(`shell`, `{"command":["bash","-c","exit 2"]}`)}},
		{Text: "All done."},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "say hi")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, run.Stderr)
	}
	got := regexp.MustCompile(`"thread_id":"[^"]+"`).ReplaceAllString(run.Stdout.String(), `"thread_id":"THREAD"`)
	got = regexp.MustCompile(`"(input_tokens|cached_input_tokens|output_tokens|reasoning_output_tokens)":\d+`).ReplaceAllString(got, `"$1":N`)
	golden := filepath.Join("testdata", "exec-json.golden")
	if *e2etest.Update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("exec --json transcript changed (run with -update if intended)\ngot:\n%s\nwant:\n%s", got, want)
	}
}
