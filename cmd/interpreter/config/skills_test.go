package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// [skills] with Codex's keys becomes the settings the skills activity
// applies; Reload sees a changed file.
func TestSkillSettings(t *testing.T) {
	home := setup(t, `
[skills.bundled]
enabled = false

[[skills.config]]
path = "/repo/.agents/skills/deploy/SKILL.md"
enabled = false

[[skills.config]]
name = "review"
enabled = true
`)
	c := mustLoad(t, Options{Strict: true})
	want := skills.Settings{NoBundled: true, Rules: []skills.Rule{
		{Path: "/repo/.agents/skills/deploy/SKILL.md", Enabled: false},
		{Name: "review", Enabled: true},
	}}
	if got := c.SkillSettings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("settings = %+v, want %+v", got, want)
	}
	if st := mustLoad(t, Options{}).SkillSettings(); st.NoBundled != true {
		t.Fatalf("lenient load: %+v", st)
	}

	if err := os.WriteFile(filepath.Join(home, FileName), []byte("[[skills.config]]\nname = \"deploy\"\nenabled = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c2, err := c.Reload()
	if err != nil {
		t.Fatal(err)
	}
	want = skills.Settings{Rules: []skills.Rule{{Name: "deploy"}}}
	if got := c2.SkillSettings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after reload = %+v, want %+v", got, want)
	}
	if st := mustLoad(t, Options{}).SkillSettings(); len(st.Rules) != 1 || st.NoBundled {
		t.Fatalf("defaults: %+v", st)
	}
}

func TestSkillSettingsErrors(t *testing.T) {
	tests := []struct{ name, file, wantErr string }{
		{"no selector", "[[skills.config]]\nenabled = false", "invalid skills.config[0]: give the skill's path or its name"},
		{"both selectors", "[[skills.config]]\nname = \"a\"\npath = \"/a\"\nenabled = false", "not both"},
		{"relative path", "[[skills.config]]\npath = \"a/SKILL.md\"\nenabled = false", `invalid skills.config[0].path "a/SKILL.md": must be an absolute path`},
		{"no enabled", "[[skills.config]]\nname = \"a\"\n[[skills.config]]\nname = \"b\"", "invalid skills.config[0]: enabled (true or false) is required"},
		{"unknown key", "[[skills.config]]\nname = \"a\"\nenabled = false\nenable = true", `unknown config key "skills.config.enable"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t, tt.file)
			_, err := Load(Options{Strict: true})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
