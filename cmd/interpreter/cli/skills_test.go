package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities"
)

func writeSkillFiles(t *testing.T, dir, name, yaml string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if yaml != "" {
		if err := os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// `interpreter skills list` shows what a turn would get here: skills with
// their scope and servers, the merged servers, disabled skills, warnings
// for skipped ones; a conflict exits 1 naming both skills. `harness show`
// renders the same listing in the system prompt.
func TestSkillsList(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	sk := filepath.Join(repo, ".agents", "skills")
	deploy := writeSkillFiles(t, filepath.Join(sk, "deploy"), "deploy", "dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://cloud/mcp'}\n")
	writeSkillFiles(t, filepath.Join(sk, "bad"), "bad", "dependencies:\n  tools:\n    - {type: mcp, value: x, transport: stdio, command: s, colour: red}\n")
	writeSkillFiles(t, filepath.Join(sk, "off"), "off", "")

	code, out, errs := run(t, "-c", `skills.config=[{name="off", enabled=false}]`, "skills", "list", "-C", repo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"deploy", "repo", "cloud", deploy, "code-review", "bundled", "skill-creator",
		"disabled ([[skills.config]]): off", "cloud (streamable_http https://cloud/mcp) for deploy"} {
		if !strings.Contains(out, want) {
			t.Errorf("skills list lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, `skill "bad" skipped`) || !strings.Contains(errs, `field "colour": unknown field`) {
		t.Errorf("warnings: %s", errs)
	}

	code, out, _ = run(t, "skills", "list", "-C", repo, "--json")
	var got activities.SkillsOutput
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got.Servers) != 1 || got.Servers[0].Skills[0] != "deploy" {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}

	code, out, _ = run(t, "harness", "show", "codex", "-C", repo)
	if code != 0 || !strings.Contains(out, "- deploy: The deploy skill. (file: "+deploy+")") {
		t.Fatalf("harness show: exit %d\n%s", code, out)
	}

	writeSkillFiles(t, filepath.Join(sk, "ops"), "ops", "dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://elsewhere/mcp'}\n")
	code, _, errs = run(t, "skills", "list", "-C", repo)
	if code != 1 || !strings.Contains(errs, `skills "deploy" and "ops" both declare MCP server "cloud", with a different url`) {
		t.Fatalf("conflict: exit %d: %s", code, errs)
	}
}

// `skills list --kind` shows what each kind of run gets: the skills its
// ankole-runtime lets it see, the others as "not for" it; a conflict is
// reported for the kinds that see both skills, and a plain `skills list`
// reports every kind's.
func TestSkillsListByKind(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	sk := filepath.Join(repo, ".agents", "skills")
	writeSkillFiles(t, filepath.Join(sk, "deploy"), "deploy", "dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://cloud/mcp'}\n")
	night := writeSkillFiles(t, filepath.Join(sk, "nightly"), "nightly", "dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://elsewhere/mcp'}\n")
	people := writeSkillFiles(t, filepath.Join(sk, "people"), "people", "")
	for p, rt := range map[string]string{night: "background_job", people: "main"} {
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "\n---\n", "\nankole-runtime: "+rt+"\n---\n", 1)), 0o644)
	}
	off := []string{"-c", "skills.bundled.enabled=false"}

	code, out, errs := run(t, append(off, "skills", "list", "-C", repo, "--kind", "main")...)
	if code != 0 || !strings.Contains(out, "skills of a main run") || !strings.Contains(out, "people  repo   main") ||
		strings.Contains(out, "nightly  repo") || !strings.Contains(out, "not for a main run (ankole-runtime): nightly") {
		t.Fatalf("--kind main: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, append(off, "skills", "list", "-C", repo, "--kind", "background_job")...)
	if code != 1 || !strings.Contains(out, "nightly  repo   background_job") || strings.Contains(out, "people  repo") ||
		!strings.Contains(errs, `a background_job run here cannot start: skills "deploy" and "nightly" both declare MCP server "cloud"`) {
		t.Fatalf("--kind background_job: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, append(off, "skills", "list", "-C", repo, "--kind", "automation")...)
	if code != 1 || !strings.Contains(out, "people") || !strings.Contains(out, "nightly") ||
		!strings.Contains(errs, "an automation command job here cannot get the skills' servers") {
		t.Fatalf("--kind automation: exit %d\n%s%s", code, out, errs)
	}
	// Without --kind: the main listing, and the other kinds' conflicts.
	code, out, errs = run(t, append(off, "skills", "list", "-C", repo)...)
	if code != 1 || !strings.Contains(out, "skills of a main run") || !strings.Contains(errs, "a background_job run here cannot start") ||
		!strings.Contains(errs, "an automation command job here cannot") {
		t.Fatalf("no --kind: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "skills", "list", "-C", repo, "--kind", "nightly")
	if code != 2 && code != 1 || !strings.Contains(errs, "--kind") {
		t.Fatalf("bad kind: exit %d: %s", code, errs)
	}
}
