package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const commented = `# my settings
model = "o3"   # the model I like

[features]
# turned on by hand
shell_snapshot = true

[tui]
theme = "dark"
`

func TestApplyEditKeepsCommentsAndOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		edit Edit
		want string
	}{
		{"replace a value in place", commented, Edit{KeyPath: "model", Value: "gpt-5.1", Upsert: true},
			strings.Replace(commented, `"o3"`, `"gpt-5.1"`, 1)},
		{"new key at the end of its table", commented, Edit{KeyPath: "features.multi_agent", Value: false, Upsert: true},
			strings.Replace(commented, "shell_snapshot = true\n", "shell_snapshot = true\nmulti_agent = false\n", 1)},
		{"new top-level key after the others", commented, Edit{KeyPath: "max_steps", Value: float64(5)},
			strings.Replace(commented, "like\n", "like\nmax_steps = 5\n", 1)},
		{"new table at the end", commented, Edit{KeyPath: "memories.enabled", Value: true},
			commented + "\n[memories]\nenabled = true\n"},
		{"a table merged key by key", commented, Edit{KeyPath: "tui", Value: map[string]any{"theme": "light", "x": float64(1)}, Upsert: true},
			strings.Replace(commented, `theme = "dark"`, "theme = \"light\"\nx = 1", 1)},
		{"a table replaced", commented, Edit{KeyPath: "tui", Value: map[string]any{"y": float64(2)}},
			strings.Replace(commented, "theme = \"dark\"", "y = 2", 1)},
		{"null removes a key", commented, Edit{KeyPath: "features.shell_snapshot", Value: nil},
			strings.Replace(commented, "shell_snapshot = true\n", "", 1)},
		{"null removes a table", commented, Edit{KeyPath: "tui", Value: nil},
			strings.TrimSuffix(strings.Replace(commented, "[tui]\ntheme = \"dark\"\n", "", 1), "\n")},
		{"dotted keys at the top stay dotted", "features.shell_snapshot = true\n", Edit{KeyPath: "features.multi_agent", Value: true},
			"features.shell_snapshot = true\nfeatures.multi_agent = true\n"},
		{"an inline table is written anew", "tui = { theme = \"dark\" }\n", Edit{KeyPath: "tui.x", Value: float64(1.5)},
			"tui = { theme = \"dark\", x = 1.5 }\n"},
		{"an empty file", "", Edit{KeyPath: "model", Value: "o4"}, "model = \"o4\"\n"},
		{"a top-level key before the first table", "[features]\nmulti_agent = true\n", Edit{KeyPath: "model", Value: "o4"},
			"model = \"o4\"\n\n[features]\nmulti_agent = true\n"},
		{"quoted key parts", commented, Edit{KeyPath: `projects."/work/repo".trust_level`, Value: "trusted"},
			commented + "\n[projects.\"/work/repo\"]\ntrust_level = \"trusted\"\n"},
		{"a value over several lines", "project_doc_fallback_filenames = [\n  \"A.md\", # first\n  \"B.md\",\n]\nmodel = \"o3\"\n",
			Edit{KeyPath: "project_doc_fallback_filenames", Value: []any{"C.md"}}, "project_doc_fallback_filenames = [\"C.md\"]\nmodel = \"o3\"\n"},
		{"removing a key over several lines", "compact_prompt = \"\"\"\nline\n\"\"\"\nmodel = \"o3\"\n",
			Edit{KeyPath: "compact_prompt", Value: nil}, "model = \"o3\"\n"},
		{"a file without a final newline", "model = \"o3\"", Edit{KeyPath: "max_steps", Value: float64(3)},
			"model = \"o3\"\nmax_steps = 3\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyEdit(c.text, c.edit)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestApplyEditRefuses(t *testing.T) {
	for _, c := range []struct {
		name, text string
		edit       Edit
		want       string
	}{
		{"empty key", "", Edit{KeyPath: "", Value: "x"}, "keyPath must not be empty"},
		{"below a value", commented, Edit{KeyPath: "model.foo", Value: float64(1)}, "cannot set value on non-table parent"},
		{"inside an array of tables", "[[skills.config]]\nname = \"a\"\nenabled = false\n", Edit{KeyPath: "skills.config.name", Value: "b"}, "array of tables"},
		{"a broken file", "model = \n", Edit{KeyPath: "model", Value: "x"}, "not valid TOML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := applyEdit(c.text, c.edit)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func writeConfig(t *testing.T, text string) (string, Options) {
	t.Helper()
	home := t.TempDir()
	if text != "" {
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(home, FileName), Options{Home: home}
}

func TestWriteEditsValidatesBeforeWriting(t *testing.T) {
	path, opts := writeConfig(t, commented)
	for _, c := range []struct {
		edits []Edit
		code  string
		want  string
	}{
		{[]Edit{{KeyPath: "approval_policy", Value: "bogus"}}, WriteInvalid, `Invalid configuration: invalid approval_policy "bogus"`},
		{[]Edit{{KeyPath: "model", Value: "gpt-5"}, {KeyPath: "max_steps", Value: "many"}}, WriteInvalid, "Invalid configuration"},
		{[]Edit{{KeyPath: "model.x", Value: true}}, WriteInvalid, "non-table parent"},
		{[]Edit{{KeyPath: "memories.enabled", Value: "yes"}}, WriteInvalid, "memories.enabled"},
	} {
		_, err := WriteEdits(opts, c.edits, "")
		var we *WriteError
		if !errors.As(err, &we) || we.Code != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %s saying %q", c.edits, err, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != commented {
		t.Fatalf("a refused write changed the file:\n%s", b)
	}
	_, err := WriteEdits(opts, []Edit{{KeyPath: "model", Value: "x"}}, "sha256:0000")
	var we *WriteError
	if !errors.As(err, &we) || we.Code != WriteVersionConflict {
		t.Fatalf("a stale expectedVersion: %v", err)
	}
	strict := opts
	strict.Strict = true
	if _, err := WriteEdits(strict, []Edit{{KeyPath: "notice.hide", Value: true}}, ""); !errors.As(err, &we) || we.Code != WriteInvalid {
		t.Fatalf("an unknown key under --strict-config: %v", err)
	}
}

func TestWriteEditsWritesAtomically(t *testing.T) {
	path, opts := writeConfig(t, commented)
	w, err := WriteEdits(opts, []Edit{{KeyPath: "model", Value: "gpt-5.1"}, {KeyPath: "features.multi_agent", Value: false}}, FileVersion(commented))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != path || w.Version != FileVersion(string(b)) || !strings.Contains(string(b), "# the model I like") {
		t.Fatalf("wrote %+v:\n%s", w, b)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode became %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	cfg, err := Load(opts)
	if err != nil || cfg.Model != "gpt-5.1" || cfg.MultiAgent() {
		t.Fatalf("loaded back: %v %+v", err, cfg)
	}
}

func TestWriteEditsReportsOverrides(t *testing.T) {
	_, opts := writeConfig(t, "")
	opts.Overrides = []string{"model=o3"}
	w, err := WriteEdits(opts, []Edit{{KeyPath: "model", Value: "gpt-5.1"}, {KeyPath: "max_steps", Value: float64(9)}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Overridden) != 1 || w.Overridden[0].KeyPath != "model" || w.Overridden[0].Value != "o3" || w.Overridden[0].Layer != "sessionFlags" {
		t.Fatalf("overridden: %+v", w.Overridden)
	}
	// The same value as the override's is in effect: not overridden.
	if w, err = WriteEdits(opts, []Edit{{KeyPath: "model", Value: "o3"}}, ""); err != nil || len(w.Overridden) != 0 {
		t.Fatalf("%v %+v", err, w.Overridden)
	}
}

func TestSetSkillEnabled(t *testing.T) {
	path, opts := writeConfig(t, commented)
	read := func() string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
	if on, err := SetSkillEnabled(opts, "deploy", "", false); err != nil || on {
		t.Fatalf("turning off: %v %v", on, err)
	}
	want := commented + "\n[[skills.config]]\nname = \"deploy\"\nenabled = false\n"
	if got := read(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := SetSkillEnabled(opts, "", "/x/SKILL.md", false); err != nil {
		t.Fatal(err)
	}
	// Turned on again: its entry goes; a name-selected one stays, and
	// since it could still match, an explicit entry is written.
	if on, err := SetSkillEnabled(opts, "", "/x/SKILL.md", true); err != nil || !on {
		t.Fatalf("turning on: %v %v", on, err)
	}
	if got := read(); got != want+"\n[[skills.config]]\npath = \"/x/SKILL.md\"\nenabled = true\n" {
		t.Fatalf("got\n%s", got)
	}
	if _, err := SetSkillEnabled(opts, "deploy", "", true); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != commented+"\n[[skills.config]]\npath = \"/x/SKILL.md\"\nenabled = true\n" {
		t.Fatalf("after turning all on again:\n%s", got)
	}
	if _, err := SetSkillEnabled(opts, "a", "/b", true); err == nil {
		t.Fatal("both selectors were taken")
	}
	cfg, err := Load(opts)
	if err != nil || len(cfg.Skills.Config) != 1 {
		t.Fatalf("%v %+v", err, cfg.Skills)
	}
}

// What the TUI's /memories writes ([features] memories and memory_tool)
// turns memory on, without a warning; [memories] enabled = false still
// turns it off.
func TestMemoriesFeatureSwitch(t *testing.T) {
	_, opts := writeConfig(t, "")
	if _, err := WriteEdits(opts, []Edit{{KeyPath: "features.memories", Value: true}, {KeyPath: "features.memory_tool", Value: true}}, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := cfg.MemorySettings(); err != nil || !m.Enabled || len(cfg.Warnings()) != 0 {
		t.Fatalf("memories %+v %v, warnings %v", m, err, cfg.Warnings())
	}
	opts.Overrides = []string{"memories.enabled=false"}
	cfg, _ = Load(opts)
	if m, _ := cfg.MemorySettings(); m.Enabled {
		t.Fatal("[memories] enabled = false left memory on")
	}
}
