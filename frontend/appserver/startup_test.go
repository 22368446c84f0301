package appserver

import (
	"context"
	"reflect"
	"testing"
)

// skillBackend is the fake backend with skills.
type skillBackend struct {
	*fakeBackend
	cwds []string
}

func (b *skillBackend) Skills(_ context.Context, cwd string) ([]SkillInfo, []string, error) {
	b.cwds = append(b.cwds, cwd)
	return []SkillInfo{{Name: "deploy", Description: "Ship it", Path: cwd + "/.agents/skills/deploy/SKILL.md", Scope: "repo", Enabled: true}},
		[]string{"skipped broken: no description"}, nil
}

// The methods Codex's TUI calls at start-up are answered (and match the
// reference schema): empty where this server lacks the capability, the
// backend's skills for skills/list, the connection's threads for
// thread/loaded/list.
func TestStartupMethods(t *testing.T) {
	b := &skillBackend{fakeBackend: newFakeBackend()}
	c := startClient(t, b)
	c.initialize()
	if r := c.call("account/read", map[string]any{}); r["account"] != nil || r["requiresOpenaiAuth"] != false {
		t.Fatalf("account/read: %v", r)
	}
	if r := c.call("configRequirements/read", nil); r["requirements"] != nil {
		t.Fatalf("configRequirements/read: %v", r)
	}
	if r := c.call("mcpServerStatus/list", map[string]any{}); len(r["data"].([]any)) != 0 {
		t.Fatalf("mcpServerStatus/list: %v", r)
	}
	if r := c.call("plugin/installed", map[string]any{"cwds": []string{"/work"}}); len(r["marketplaces"].([]any)) != 0 {
		t.Fatalf("plugin/installed: %v", r)
	}

	r := c.call("skills/list", map[string]any{"cwds": []string{"/repo", "sub"}, "forceReload": true})
	if !reflect.DeepEqual(b.cwds, []string{"/repo", "/work/sub"}) {
		t.Fatalf("skills listed for %v", b.cwds)
	}
	first := r["data"].([]any)[0].(map[string]any)
	skill := first["skills"].([]any)[0].(map[string]any)
	if first["cwd"] != "/repo" || skill["name"] != "deploy" || skill["enabled"] != true || len(first["errors"].([]any)) != 1 {
		t.Fatalf("skills/list: %v", r)
	}

	if r := c.call("thread/loaded/list", map[string]any{}); len(r["data"].([]any)) != 0 {
		t.Fatalf("thread/loaded/list before any thread: %v", r)
	}
	id := c.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c.read()
	if r := c.call("thread/loaded/list", map[string]any{}); !reflect.DeepEqual(r["data"], []any{id}) {
		t.Fatalf("thread/loaded/list: %v", r)
	}
}
