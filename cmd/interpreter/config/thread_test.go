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
		{nil, workflows.CommandsActivity},
		{&yes, workflows.CommandsLocal},
		{&no, workflows.CommandsActivity},
	} {
		if got := Commands(tc.local); got != tc.want {
			t.Errorf("Commands(%v) = %q, want %q", tc.local, got, tc.want)
		}
	}
}
