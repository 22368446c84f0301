package activities

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

func writeKindSkill(t *testing.T, dir, name, runtime, server string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: The " + name + " skill.\nankole-runtime: " + runtime + "\n---\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	y := "dependencies:\n  tools:\n    - {type: mcp, value: " + server + ", transport: stdio, command: " + server + "-mcp}\n"
	if err := os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A command job gets the servers of the main and the background skills
// alike, but not a disabled skill's; a conflict between two of them is an
// error naming both.
func TestEnabledSkillServers(t *testing.T) {
	cwd := t.TempDir()
	sk := filepath.Join(cwd, ".agents", "skills")
	writeKindSkill(t, filepath.Join(sk, "a"), "a", "main", "alpha")
	writeKindSkill(t, filepath.Join(sk, "b"), "b", "background_job", "beta")
	writeKindSkill(t, filepath.Join(sk, "c"), "c", "any", "gamma")
	a := &Activities{Home: t.TempDir(), SkillsUserHome: t.TempDir(), SkillSettings: func() (skills.Settings, error) {
		return skills.Settings{NoBundled: true, Rules: []skills.Rule{{Name: "c", Enabled: false}}}, nil
	}}
	servers, warnings, err := a.EnabledSkillServers(context.Background(), cwd)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("err %v warnings %q", err, warnings)
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Fatalf("servers %q", names)
	}

	writeKindSkill(t, filepath.Join(sk, "d"), "d", "background_job", "alpha")
	other := "dependencies:\n  tools:\n    - {type: mcp, value: alpha, transport: stdio, command: other-mcp}\n"
	if err := os.WriteFile(filepath.Join(sk, "d", "agents", "openai.yaml"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = a.EnabledSkillServers(context.Background(), cwd)
	if err == nil || !strings.Contains(err.Error(), `skills "a" and "d" both declare MCP server "alpha"`) {
		t.Fatalf("conflict: %v", err)
	}
	// A main turn does not see d, so it has no conflict.
	out, err := a.DiscoverSkills(context.Background(), SkillsInput{Cwd: cwd, Kind: skills.KindMain})
	if err != nil || out.Conflict != "" || !slices.Equal(out.Hidden, []string{"b", "d"}) {
		t.Fatalf("main: %v %+v", err, out)
	}
}
