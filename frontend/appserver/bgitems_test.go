package appserver

import (
	"testing"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
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

func TestJoinOutput(t *testing.T) {
	for _, c := range []struct{ before, tail, want string }{
		{"", "", ""},
		{"a\n", "", "a\n"},
		{"", "b\n", "b\n"},
		{"started\n", "started\nfinished\n", "started\nfinished\n"},
		{"one\ntwo\n", "two\nthree\n", "one\ntwo\nthree\n"},
		{"one\n", "three\n", "one\nthree\n"},
		{"aaaa", "aaab", "aaaab"},
	} {
		if got := joinOutput(c.before, c.tail); got != c.want {
			t.Errorf("joinOutput(%q, %q) = %q, want %q", c.before, c.tail, got, c.want)
		}
	}
}

func TestFinishItem(t *testing.T) {
	out := "started\n"
	zero, seven := 0, 7
	for _, c := range []struct {
		name   string
		end    workflows.EndedTerminal
		status string
	}{
		{"exit 0", workflows.EndedTerminal{Status: workflows.TerminalExited, ExitCode: &zero, Output: "started\ndone\n", DurationMs: 1200}, protocol.StatusCompleted},
		{"exit 7", workflows.EndedTerminal{Status: workflows.TerminalExited, ExitCode: &seven, Output: "started\ndone\n", DurationMs: 1200}, protocol.StatusFailed},
		{"worker gone", workflows.EndedTerminal{Status: workflows.TerminalWorkerStopped, Output: "started\n"}, protocol.StatusFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			item := finishItem(protocol.CommandExecutionItem{Status: protocol.StatusCompleted, AggregatedOutput: &out}, c.end)
			if item.Status != c.status {
				t.Errorf("status %q, want %q", item.Status, c.status)
			}
			if item.ExitCode != c.end.ExitCode {
				t.Errorf("exit code %v", item.ExitCode)
			}
			if want := joinOutput(out, c.end.Output); *item.AggregatedOutput != want {
				t.Errorf("output %q, want %q", *item.AggregatedOutput, want)
			}
			if (item.DurationMs != nil) != (c.end.DurationMs > 0) {
				t.Errorf("duration %v", item.DurationMs)
			}
		})
	}
}
