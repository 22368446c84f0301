package appserver

import (
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

func TestStillRunning(t *testing.T) {
	code := 0
	for _, c := range []struct {
		name string
		it   workflows.Item
		want bool
	}{
		{"session left running", workflows.Item{Type: workflows.ItemCommandExecution, ProcessID: "1000", Status: workflows.StatusCompleted}, true},
		{"session that exited", workflows.Item{Type: workflows.ItemCommandExecution, ProcessID: "1000", Status: workflows.StatusCompleted, ExitCode: &code}, false},
		{"session interrupted", workflows.Item{Type: workflows.ItemCommandExecution, ProcessID: "1000", Status: workflows.StatusInterrupted}, false},
		{"shell command", workflows.Item{Type: workflows.ItemCommandExecution, Status: workflows.StatusCompleted}, false},
		{"in progress", workflows.Item{Type: workflows.ItemCommandExecution, ProcessID: "1000", Status: workflows.StatusInProgress}, false},
		{"other item", workflows.Item{Type: workflows.ItemAgentMessage, ProcessID: "1000", Status: workflows.StatusCompleted}, false},
	} {
		if got := stillRunning(&c.it); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSessionSource(t *testing.T) {
	if got := sessionSource(&workflows.Item{ProcessID: "1000"}); got != "unifiedExecStartup" {
		t.Errorf("exec_command: %s", got)
	}
	if got := sessionSource(&workflows.Item{}); got != "agent" {
		t.Errorf("shell: %s", got)
	}
}
