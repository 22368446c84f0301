package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

func TestMCPorterFileHoldsConnectionFactsAndVariableNamesOnly(t *testing.T) {
	data, err := mcporterFile([]skills.MCPDependency{
		{Name: "notes", Transport: skills.TransportStdio, Command: "notes-mcp", Args: []string{"--db", "x"}, Description: "Notes"},
		{Name: "tracker", Transport: skills.TransportHTTP, URL: "https://tracker.example/mcp", BearerTokenEnvVar: "TRACKER_TOKEN"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"imports": []any{},
		"mcpServers": map[string]any{
			"notes":   map[string]any{"command": "notes-mcp", "args": []any{"--db", "x"}, "description": "Notes"},
			"tracker": map[string]any{"baseUrl": "https://tracker.example/mcp", "headers": map[string]any{"Authorization": "Bearer ${TRACKER_TOKEN}"}},
		},
	}
	if a, b := mustJSON(t, got), mustJSON(t, want); a != b {
		t.Fatalf("config\n got %s\nwant %s", a, b)
	}
	empty, _ := mcporterFile(nil)
	if !strings.Contains(string(empty), `"mcpServers": {}`) || !strings.Contains(string(empty), `"imports": []`) {
		t.Fatalf("no servers: %s", empty)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The command sees its config (0600, its servers, no imports) through
// MCPORTER_CONFIG, with the credential a placeholder names in its
// environment and not in the file; the file is gone once it ran.
func TestRunCommandJobGivesTheCommandItsConfigAndRemovesIt(t *testing.T) {
	a := newTestActivities(t)
	a.Home = t.TempDir()
	a.Getenv = func(k string) string {
		if k == "TRACKER_TOKEN" {
			return "s3cret"
		}
		return ""
	}
	cwd := t.TempDir()
	writeKindSkill(t, filepath.Join(cwd, ".agents", "skills", "a"), "a", "main", "alpha")
	y := "dependencies:\n  tools:\n    - {type: mcp, value: tracker, transport: streamable_http, url: 'https://tracker.example/mcp', bearer_token_env_var: TRACKER_TOKEN}\n"
	writeKindSkill(t, filepath.Join(cwd, ".agents", "skills", "b"), "b", "background_job", "beta")
	if err := os.WriteFile(filepath.Join(cwd, ".agents", "skills", "b", "agents", "openai.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `stat -c %a "$MCPORTER_CONFIG"; cat "$MCPORTER_CONFIG"; echo "token=$TRACKER_TOKEN"; echo "path=$MCPORTER_CONFIG"`
	out, err := a.RunCommandJob(context.Background(), CommandJobInput{RunID: "automation-x-run-1",
		Exec: ExecInput{ThreadID: "automation-x-run-1", CallID: "command", Command: []string{"bash", "-c", script}, Cwd: cwd, SandboxMode: "danger-full-access"}})
	if err != nil {
		t.Fatal(err)
	}
	o := out.Exec.Output
	if out.Exec.ExitCode != 0 || !strings.HasPrefix(o, "600\n") || !strings.Contains(o, `"imports": []`) ||
		!strings.Contains(o, `"alpha"`) || !strings.Contains(o, `"Bearer ${TRACKER_TOKEN}"`) || !strings.Contains(o, "token=s3cret") {
		t.Fatalf("exit %d, output:\n%s", out.Exec.ExitCode, o)
	}
	if strings.Count(o, "s3cret") != 1 {
		t.Fatalf("the token's value is in the file:\n%s", o)
	}
	i := strings.Index(o, "path=")
	path := strings.TrimSpace(o[i+len("path="):])
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("config %s still there: %v", path, err)
	}
	if want := []string{"alpha", "tracker"}; strings.Join(out.Servers, ",") != strings.Join(want, ",") {
		t.Fatalf("servers %v", out.Servers)
	}
}

// A run directory a dead worker left (nobody holds its lock) goes with
// the next run; a live run's stays.
func TestSweepRemovesOnlyTheRunDirsOfDeadRuns(t *testing.T) {
	a := newTestActivities(t)
	a.Home = t.TempDir()
	live, err := a.openRunDir("live")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := live.writeConfig([]byte("{}")); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(a.runDirs(), "dead")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".lock", "mcporter.json"} {
		if err := os.WriteFile(filepath.Join(dead, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a.sweepRunDirs()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("dead run's dir kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(live.path, "mcporter.json")); err != nil {
		t.Fatalf("live run's config swept: %v", err)
	}
	if err := live.remove(); err != nil {
		t.Fatal(err)
	}
}
