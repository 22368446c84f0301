package fakemodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScript(t *testing.T) {
	tests := []struct {
		name, json string
		wantErr    []string // substrings of the error; none means success
	}{
		{"ok", `{"turns":[{"match":"x","steps":[{"text":"hi","shell":"ls","repeat":2,"delay_ms":1,
			"fail_status":503,"fail_times":2,"drop_stream":true,"reasoning":"r",
			"tool_calls":[{"name":"f","arguments":{"a":1}}],
			"usage":{"input_tokens":1,"output_tokens":2,"cached_input_tokens":0}}]}]}`, nil},
		{"unknown field", `{"turns":[{"steps":[{"shel":"ls"}]}]}`, []string{"shel"}},
		{"unknown top-level field", `{"turns":[{"steps":[{"text":"a"}]}],"extra":1}`, []string{"extra"}},
		{"unknown usage field", `{"turns":[{"steps":[{"usage":{"cached_tokens":3}}]}]}`, []string{"cached_tokens"}},
		{"syntax error has a position", "{\"turns\": [\n  {\"steps\": [}\n]}", []string{"line 2"}},
		{"wrong type", `{"turns":[{"steps":[{"repeat":"two"}]}]}`, []string{"repeat"}},
		{"trailing data", `{"turns":[{"steps":[{"text":"a"}]}]} {}`, []string{"after the top-level object"}},
		{"no turns", `{"turns":[]}`, []string{"no turns"}},
		{"no steps", `{"turns":[{"steps":[{"text":"a"}]},{"steps":[]}]}`, []string{"turn 1 has no steps"}},
		{"arguments not an object", `{"turns":[{"steps":[{"tool_calls":[{"name":"f","arguments":[1]}]}]}]}`,
			[]string{"turn 0 step 0", "tool_calls[0]", "JSON object"}},
		{"tool call without name", `{"turns":[{"steps":[{"tool_calls":[{"arguments":{}}]}]}]}`, []string{"name is required"}},
		{"bad fail status", `{"turns":[{"steps":[{"text":"a"},{"fail_status":200}]}]}`, []string{"turn 0 step 1", "fail_status 200"}},
		{"fail_times without status", `{"turns":[{"steps":[{"fail_times":2}]}]}`, []string{"fail_times needs fail_status"}},
		{"negative repeat", `{"turns":[{"steps":[{"repeat":-1}]}]}`, []string{"repeat -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScript([]byte(tt.json))
			if len(tt.wantErr) == 0 {
				if err != nil || s == nil {
					t.Fatalf("ParseScript: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"turns":[{"steps":[{"shell":"pwd"},{"text":"bye"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 1 || s.Turns[0].Steps[0].Shell != "pwd" {
		t.Errorf("loaded %+v", s)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"turns":[{"steps":[{"txt":"x"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScript(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "txt") {
		t.Errorf("bad script error %v", err)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file loaded")
	}
}

func TestDemoScriptIsValid(t *testing.T) {
	if err := DemoScript().Validate(); err != nil {
		t.Fatal(err)
	}
}
