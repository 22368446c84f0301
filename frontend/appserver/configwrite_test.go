package appserver

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// writerBackend is the fake backend with a config writer that records
// what it was asked.
type writerBackend struct {
	*fakeBackend
	writes []ConfigWrite
	skills []string
	refuse *ConfigWriteError
	over   *ConfigOverride
}

func (b *writerBackend) WriteConfig(_ context.Context, w ConfigWrite) (ConfigWritten, error) {
	if b.refuse != nil {
		return ConfigWritten{}, b.refuse
	}
	b.writes = append(b.writes, w)
	return ConfigWritten{Path: "/home/test/.interpreter/config.toml", Version: "sha256:abc", Overridden: b.over}, nil
}

func (b *writerBackend) SetSkillEnabled(_ context.Context, name, path string, enabled bool) (bool, error) {
	b.skills = append(b.skills, name+path)
	return enabled, nil
}

// config/value/write and config/batchWrite hand the edits to the backend
// (values decoded with their integers kept), and answer in Codex's shape;
// a refusal carries Codex's config_write_error_code.
func TestConfigWrites(t *testing.T) {
	b := &writerBackend{fakeBackend: newFakeBackend()}
	c := startClient(t, b)
	c.initialize()
	r := c.call("config/batchWrite", map[string]any{"edits": []any{
		map[string]any{"keyPath": "model", "value": "gpt-5.1", "mergeStrategy": "upsert"},
		map[string]any{"keyPath": "features.memories", "value": nil, "mergeStrategy": "replace"},
		map[string]any{"keyPath": "max_steps", "value": json.RawMessage("9007199254740993"), "mergeStrategy": "replace"},
	}, "reloadUserConfig": true})
	if r["status"] != "ok" || r["version"] != "sha256:abc" || r["filePath"] != "/home/test/.interpreter/config.toml" || r["overriddenMetadata"] != nil {
		t.Fatalf("config/batchWrite: %v", r)
	}
	want := []ConfigChange{{KeyPath: "model", Value: "gpt-5.1", Upsert: true}, {KeyPath: "features.memories"},
		{KeyPath: "max_steps", Value: json.Number("9007199254740993")}}
	if len(b.writes) != 1 || !reflect.DeepEqual(b.writes[0].Edits, want) {
		t.Fatalf("edits: %+v", b.writes)
	}

	b.over = &ConfigOverride{KeyPath: "model", Layer: "sessionFlags", Value: "o3", LayerVersion: "sha256:def"}
	r = c.call("config/value/write", map[string]any{"keyPath": "model", "value": "gpt-5.1", "mergeStrategy": "replace",
		"expectedVersion": "sha256:abc", "filePath": "/home/test/.interpreter/config.toml"})
	meta, _ := r["overriddenMetadata"].(map[string]any)
	if r["status"] != "okOverridden" || meta["effectiveValue"] != "o3" || meta["overridingLayer"].(map[string]any)["name"].(map[string]any)["type"] != "sessionFlags" {
		t.Fatalf("an overridden key: %v", r)
	}
	if w := b.writes[1]; w.ExpectedVersion != "sha256:abc" || w.FilePath != "/home/test/.interpreter/config.toml" {
		t.Fatalf("write: %+v", w)
	}

	for _, bad := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"keyPath": "model", "value": "x", "mergeStrategy": "bogus"}, "Invalid request: unknown variant `bogus`, expected `replace` or `upsert`"},
		{map[string]any{"keyPath": "model", "mergeStrategy": "upsert"}, "Invalid request: missing field `value`"},
		{map[string]any{"value": "x", "mergeStrategy": "upsert"}, "Invalid request: missing field `keyPath`"},
	} {
		if e := c.callErr("config/value/write", bad.params); e["message"] != bad.want || e["code"] != float64(codeInvalidRequest) {
			t.Errorf("%v: %v", bad.params, e)
		}
	}
	if len(b.writes) != 2 {
		t.Fatalf("a bad request was written: %+v", b.writes)
	}

	b.refuse = &ConfigWriteError{Code: "configValidationError", Message: "Invalid configuration: invalid approval_policy \"bogus\""}
	e := c.callErr("config/value/write", map[string]any{"keyPath": "approval_policy", "value": "bogus", "mergeStrategy": "upsert"})
	if e["code"] != float64(codeInvalidRequest) || e["message"] != b.refuse.Message ||
		e["data"].(map[string]any)["config_write_error_code"] != "configValidationError" {
		t.Fatalf("a refused write: %v", e)
	}
}

// skills/config/write takes one selector and answers the effective state.
func TestSkillsConfigWrite(t *testing.T) {
	b := &writerBackend{fakeBackend: newFakeBackend()}
	c := startClient(t, b)
	c.initialize()
	if r := c.call("skills/config/write", map[string]any{"name": "deploy", "enabled": false}); r["effectiveEnabled"] != false {
		t.Fatalf("skills/config/write: %v", r)
	}
	if r := c.call("skills/config/write", map[string]any{"path": "/r/.agents/skills/x/SKILL.md", "enabled": true}); r["effectiveEnabled"] != true {
		t.Fatalf("skills/config/write: %v", r)
	}
	for _, p := range []map[string]any{{"enabled": true}, {"name": "a", "path": "/b", "enabled": true}} {
		if e := c.callErr("skills/config/write", p); e["code"] != float64(codeInvalidParams) || e["message"] != "skills/config/write requires exactly one of path or name" {
			t.Errorf("%v: %v", p, e)
		}
	}
	if !reflect.DeepEqual(b.skills, []string{"deploy", "/r/.agents/skills/x/SKILL.md"}) {
		t.Fatalf("asked: %v", b.skills)
	}
}

// A backend that cannot write says so as Codex's read-only layer does.
func TestConfigWriteWithoutWriter(t *testing.T) {
	c := startClient(t, newFakeBackend())
	c.initialize()
	e := c.callErr("config/value/write", map[string]any{"keyPath": "model", "value": "x", "mergeStrategy": "upsert"})
	if e["data"].(map[string]any)["config_write_error_code"] != "configLayerReadonly" {
		t.Fatalf("%v", e)
	}
}

// The answers for what this server has not (hooks, plugins, another
// agent's configuration, a login) are Codex's empty ones, and
// permissionProfile/list lists the built-in profiles in pages.
func TestFeatureAnswers(t *testing.T) {
	c := startClient(t, newFakeBackend())
	c.initialize()
	r := c.call("hooks/list", map[string]any{"cwds": []string{"/a", "/b"}})
	if d := r["data"].([]any); len(d) != 2 || d[1].(map[string]any)["cwd"] != "/b" || len(d[0].(map[string]any)["hooks"].([]any)) != 0 {
		t.Fatalf("hooks/list: %v", r)
	}
	if d := c.call("hooks/list", map[string]any{})["data"].([]any); len(d) != 1 || d[0].(map[string]any)["cwd"] != "/work" {
		t.Fatalf("hooks/list with no cwd: %v", d)
	}
	if r := c.call("plugin/list", map[string]any{}); len(r["marketplaces"].([]any)) != 0 || r["featuredPluginIds"] == nil {
		t.Fatalf("plugin/list: %v", r)
	}
	if r := c.call("externalAgentConfig/detect", map[string]any{"includeHome": true}); len(r["items"].([]any)) != 0 {
		t.Fatalf("externalAgentConfig/detect: %v", r)
	}
	if r := c.call("account/logout", nil); len(r) != 0 {
		t.Fatalf("account/logout: %v", r)
	}
	var ids []any
	cursor := any(nil)
	for range 4 {
		r := c.call("permissionProfile/list", map[string]any{"limit": 2, "cursor": cursor})
		for _, p := range r["data"].([]any) {
			if p.(map[string]any)["allowed"] != true {
				t.Fatalf("%v", p)
			}
			ids = append(ids, p.(map[string]any)["id"])
		}
		if cursor = r["nextCursor"]; cursor == nil {
			break
		}
	}
	if !reflect.DeepEqual(ids, []any{":read-only", ":workspace", ":danger-full-access"}) {
		t.Fatalf("profiles: %v", ids)
	}
}

// A profile picked in /permissions (thread/settings/update's permissions
// with an approval policy, or turn/start's) is the next turns' sandbox.
func TestPermissionProfileApplies(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initializeExperimental()
	started := c.call("thread/start", map[string]any{"sandbox": "read-only"})
	c.read() // thread/started
	if p, _ := started["activePermissionProfile"].(map[string]any); p["id"] != ":read-only" {
		t.Fatalf("thread/start's activePermissionProfile: %v", started["activePermissionProfile"])
	}
	id := started["thread"].(map[string]any)["id"].(string)
	c.call("thread/settings/update", map[string]any{"threadId": id, "approvalPolicy": "never", "approvalsReviewer": "user",
		"permissions": ":danger-full-access", "sandboxPolicy": nil, "model": nil})
	last := func() (string, string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		r := b.requests[len(b.requests)-1]
		return r.SandboxMode, r.ApprovalPolicy
	}
	turn := c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "go"}}})
	if sb, ap := last(); sb != "danger-full-access" || ap != "never" {
		t.Fatalf("turn after /permissions: sandbox %q approval %q", sb, ap)
	}
	b.end(turn["turn"].(map[string]any)["id"].(string), "completed", "")
	c.until("turn/completed")
	c.call("turn/start", map[string]any{"threadId": id, "permissions": ":read-only", "input": []any{map[string]any{"type": "text", "text": "look"}}})
	if sb, _ := last(); sb != "read-only" {
		t.Fatalf("turn/start permissions: sandbox %q", sb)
	}
	wantError(t, c.callErr("thread/settings/update", map[string]any{"threadId": id, "permissions": ":mine"}), -32600, "unknown permissions profile")
}
