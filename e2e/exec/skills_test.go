package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Skills with the built binary: `interpreter dev` serves, `exec` runs a
// turn in a repository with skills. The repository skill and the bundled
// ones are listed in the system prompt the model receives; a skill whose
// openai.yaml has an unknown field and one with 65 dependencies are
// skipped with errors naming the skill, the file and the field, and the
// turn completes. Disabling the skill in config.toml (while dev keeps
// running) removes it from the next turn of the same thread.
func TestSkillsEndToEnd(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "alpha", Steps: []fakemodel.Step{{Text: "alpha done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{Text: "beta done"}}},
	}})
	if err := os.MkdirAll(filepath.Join(e.Work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(e.Work, ".agents", "skills")
	deploy := filepath.Join(skills, "deploy", "SKILL.md")
	writeTestFile(t, deploy, "---\nname: deploy\ndescription: Ship the service to staging.\n---\nSteps.\n")
	writeTestFile(t, filepath.Join(skills, "unknown-field", "SKILL.md"), "---\nname: unknown-field\ndescription: Bad yaml.\n---\n")
	writeTestFile(t, filepath.Join(skills, "unknown-field", "agents", "openai.yaml"),
		"dependencies:\n  tools:\n    - type: mcp\n      value: docs\n      transport: streamable_http\n      url: https://docs.example/mcp\n      headers: {x: y}\n")
	var many strings.Builder
	many.WriteString("dependencies:\n  tools:\n")
	for i := range 65 {
		fmt.Fprintf(&many, "    - {type: mcp, value: s%d, transport: stdio, command: srv}\n", i)
	}
	writeTestFile(t, filepath.Join(skills, "too-many", "SKILL.md"), "---\nname: too-many\ndescription: Too many servers.\n---\n")
	writeTestFile(t, filepath.Join(skills, "too-many", "agents", "openai.yaml"), many.String())

	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--json", "prompt alpha")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	evs := e2etest.JSONLines(t, run.Stdout.String())
	id := e2etest.ThreadIDOf(t, evs)
	body := e.RequestWith("prompt alpha")
	e2etest.CheckHistory(t, "the first system prompt", body,
		"- deploy: Ship the service to staging. (file: "+deploy+")",
		"- skill-creator: ", filepath.Join(e.Home, "skills", "bundled", "skill-creator", "SKILL.md"),
		"- code-review: ")
	if strings.Contains(body, "unknown-field:") || strings.Contains(body, "too-many:") {
		t.Error("a skipped skill is listed")
	}
	var errs []string
	for _, it := range e2etest.CompletedItems(evs) {
		if it["type"] == "error" {
			errs = append(errs, fmt.Sprint(it["message"]))
		}
	}
	if len(errs) != 2 {
		t.Fatalf("error items: %q", errs)
	}
	all := strings.Join(errs, "\n")
	for _, want := range []string{
		`skill "too-many" skipped`, "declares 65 dependencies; a skill may declare at most 64",
		`skill "unknown-field" skipped`, filepath.Join(skills, "unknown-field", "agents", "openai.yaml") + ":7",
		`dependencies.tools[0] (value "docs")`, `field "headers": unknown field`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("error items lack %q:\n%s", want, all)
		}
	}
	if items := e2etest.CompletedItems(evs); items[len(items)-1]["text"] != "alpha done" {
		t.Fatalf("final item %v", items[len(items)-1])
	}

	// Disabled in config.toml; dev is not restarted.
	writeTestFile(t, filepath.Join(e.Home, "config.toml"), fmt.Sprintf("[[skills.config]]\npath = %q\nenabled = false\n\n[skills.bundled]\nenabled = false\n", deploy))
	run2 := e.Exec("--json", "resume", id, "prompt beta")
	if code := run2.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec resume exited %d: %s", code, run2.Stderr)
	}
	if got := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run2.Stdout.String())); got != id {
		t.Fatalf("resumed thread %s, want %s", got, id)
	}
	body = e.RequestWith("prompt beta")
	for _, gone := range []string{"(file: " + deploy + ")", "- skill-creator: ", "## Skills"} {
		if strings.Contains(body, gone) {
			t.Errorf("the second system prompt still has %q", gone)
		}
	}
}
