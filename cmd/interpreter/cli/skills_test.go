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
