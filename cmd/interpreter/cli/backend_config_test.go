package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
)

func testSettings(t *testing.T, file string) (*appSettings, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	if file != "" {
		if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var warn bytes.Buffer
	g := &Globals{Home: home, warn: &warn}
	cfg, err := g.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &appSettings{b: &backend{}, g: g, cfg: cfg}, &warn
}

// A model saved as the default (/model's "save as default") is written to
// config.toml, and the next thread, config/read and model/list have it.
func TestWriteConfigAppliesToNewThreads(t *testing.T) {
	a, _ := testSettings(t, "# mine\nmodel = \"gpt-5\" # the old one\n")
	done, err := a.WriteConfig(context.Background(), appserver.ConfigWrite{Edits: []appserver.ConfigChange{
		{KeyPath: "model", Value: "gpt-5.1-codex", Upsert: true}, {KeyPath: "model_reasoning_effort", Value: "high", Upsert: true}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(done.Path)
	if string(b) != "# mine\nmodel = \"gpt-5.1-codex\" # the old one\nmodel_reasoning_effort = \"high\"\n" || done.Version != config.FileVersion(string(b)) {
		t.Fatalf("wrote %+v:\n%s", done, b)
	}
	tc, err := a.Resolve(appserver.ThreadSettings{Cwd: t.TempDir()})
	if err != nil || tc.Model != "gpt-5.1-codex" || tc.Reasoning.Effort != "high" {
		t.Fatalf("next thread: %v %+v", err, tc)
	}
	if c, _ := a.Config(); c["model"] != "gpt-5.1-codex" {
		t.Fatalf("config/read: %v", c)
	}
	if m, _ := a.Models(); m[0].ID != "gpt-5.1-codex" || !m[0].IsDefault {
		t.Fatalf("model/list: %+v", m)
	}

	_, err = a.WriteConfig(context.Background(), appserver.ConfigWrite{FilePath: "/etc/other.toml",
		Edits: []appserver.ConfigChange{{KeyPath: "model", Value: "x"}}})
	var we *appserver.ConfigWriteError
	if !errors.As(err, &we) || we.Code != "configLayerReadonly" {
		t.Fatalf("another file: %v", err)
	}
	_, err = a.WriteConfig(context.Background(), appserver.ConfigWrite{Edits: []appserver.ConfigChange{{KeyPath: "sandbox_mode", Value: "open"}}})
	if !errors.As(err, &we) || we.Code != "configValidationError" || !strings.Contains(we.Message, `invalid sandbox_mode "open"`) {
		t.Fatalf("a bad value: %v", err)
	}
}

// The Codex keys Codex's TUI sends with thread/start are not warned
// about; the same key written in config.toml is.
func TestClientCodexKeysAreNotWarnedAbout(t *testing.T) {
	a, warn := testSettings(t, "")
	client := map[string]any{"features.apps": true, "tui.show_tooltips": false, "hide_agent_reasoning": false}
	if _, err := a.Resolve(appserver.ThreadSettings{Cwd: t.TempDir(), Config: client}); err != nil {
		t.Fatal(err)
	}
	if warn.Len() != 0 {
		t.Fatalf("warned: %s", warn)
	}
	a, warn = testSettings(t, "[features]\napps = true\n")
	if _, err := a.Resolve(appserver.ThreadSettings{Cwd: t.TempDir(), Config: client}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "features.apps is Codex's") || strings.Contains(warn.String(), "tui") {
		t.Fatalf("warnings: %s", warn)
	}
}
