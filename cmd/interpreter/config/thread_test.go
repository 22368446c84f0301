package config

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

func TestModelCallsFromConfig(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		local *bool
		want  string
	}{
		{nil, workflows.ModelCallsAuto},
		{&yes, workflows.ModelCallsLocal},
		{&no, workflows.ModelCallsActivity},
	} {
		if got := ModelCalls(tc.local); got != tc.want {
			t.Errorf("ModelCalls(%v) = %q, want %q", tc.local, got, tc.want)
		}
	}
}

func TestCommandsFromConfig(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		local *bool
		want  string
	}{
		{nil, workflows.CommandsLocal},
		{&yes, workflows.CommandsLocal},
		{&no, workflows.CommandsActivity},
	} {
		if got := Commands(tc.local); got != tc.want {
			t.Errorf("Commands(%v) = %q, want %q", tc.local, got, tc.want)
		}
	}
}

// A config.toml without the key runs commands locally first; false in
// the file or as -c opts out.
func TestLocalCommandsDefaultOn(t *testing.T) {
	for _, tc := range []struct {
		file      string
		overrides []string
		want      string
	}{
		{"", nil, workflows.CommandsLocal},
		{"[temporal]\nlocal_commands = false\n", nil, workflows.CommandsActivity},
		{"", []string{"temporal.local_commands=false"}, workflows.CommandsActivity},
		{"[temporal]\nlocal_commands = false\n", []string{"temporal.local_commands=true"}, workflows.CommandsLocal},
	} {
		setup(t, tc.file)
		c, err := Load(Options{Strict: true, Overrides: tc.overrides})
		if err != nil {
			t.Fatal(err)
		}
		tcfg, err := c.ThreadConfig(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if tcfg.Commands != tc.want {
			t.Errorf("file %q, -c %v: Commands = %q, want %q", tc.file, tc.overrides, tcfg.Commands, tc.want)
		}
	}
}
