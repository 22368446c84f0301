package automation

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

// writeSkill puts a skill with one MCP server in dir/.agents/skills.
func writeSkill(t *testing.T, dir, name, server string) {
	t.Helper()
	d := filepath.Join(dir, ".agents", "skills", name)
	if err := os.MkdirAll(filepath.Join(d, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: The " + name + " skill.\nankole-runtime: main\n---\nUse " + server + ".\n"
	y := "dependencies:\n  tools:\n    - {type: mcp, value: " + server + ", transport: streamable_http, url: 'https://" + server + ".example/mcp', bearer_token_env_var: " + strings.ToUpper(server) + "_TOKEN}\n"
	for p, s := range map[string]string{filepath.Join(d, "SKILL.md"): md, filepath.Join(d, "agents", "openai.yaml"): y} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A command job (no model) sees its per-run mcporter config: mode 0600,
// no imports, the enabled skills' servers with the credential a
// variable name; once the run ended the file is gone. A job still
// running when it fires again is skipped, and the skip is counted.
func TestCommandJobGetsItsMCPorterConfigAndLeavesNoneBehind(t *testing.T) {
	e := &env{e2etest.NewEnv(t, &fakemodel.Script{})}
	writeSkill(t, e.Work, "tracker", "tracker")
	dev := e.StartDev()
	defer dev.Kill()
	script := `stat -c 'mode=%a' "$MCPORTER_CONFIG"; cat "$MCPORTER_CONFIG"; echo "path=$MCPORTER_CONFIG"`
	e.must("add", "job", "--every", "1h", "-C", e.Work, "--command", script)
	if out := e.must("run", "job"); !strings.Contains(out, "automation job fired") {
		t.Fatalf("run said %q", out)
	}
	var a automation
	e2etest.WaitUntil(t, func() bool { a = e.show("job"); return len(a.Runs) > 0 && a.Runs[0].Result != nil }, 60*time.Second,
		"the command job's run", func() string { return fmt.Sprintf("%+v\ndev:\n%s", a, dev.Stderr) })
	res := a.Runs[0].Result
	if res.Status != "completed" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("run: %+v", *res)
	}
	o := res.Output
	for _, want := range []string{"mode=600", `"imports": []`, `"tracker"`, `"baseUrl": "https://tracker.example/mcp"`, `"Bearer ${TRACKER_TOKEN}"`} {
		if !strings.Contains(o, want) {
			t.Fatalf("the command's output lacks %q:\n%s", want, o)
		}
	}
	i := strings.Index(o, "path=")
	path := strings.TrimSpace(o[i+len("path="):])
	if !strings.HasPrefix(path, e.Home) {
		t.Fatalf("config at %s, not under the home", path)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the run's config %s is still there: %v", path, err)
	}
	if out := e.must("show", "job"); !strings.Contains(out, "completed") || !strings.Contains(out, "exit 0") {
		t.Fatalf("show: %s", out)
	}

	// A job longer than its period: the firings while it runs are skipped.
	e.must("add", "slow", "--every", "1s", "-C", e.Work, "--command", "sleep 4")
	e2etest.WaitUntil(t, func() bool { a = e.show("slow"); return a.Skipped >= 1 }, 60*time.Second,
		"a skipped firing", func() string { return fmt.Sprintf("%+v", a) })
	if out := e.must("show", "slow"); !strings.Contains(out, "skipped (a run was running) ") {
		t.Fatalf("show: %s", out)
	}
	e.must("remove", "slow")
}
