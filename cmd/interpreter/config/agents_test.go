package config

import "testing"

// [features] multi_agent turns sub-agents on for the harnesses that have
// sub-agent tools: Codex's five, or the CLI's own (Task, Agent).
func TestOffersAgents(t *testing.T) {
	for name, want := range map[string]bool{
		"codex": true, "codex-shell": true, "claude-code": true, "kimi-cli": true,
		"opencode": false, "qwen-code": false, "swe-agent": false, "no-such-harness": false,
	} {
		if got := offersAgents(name); got != want {
			t.Errorf("offersAgents(%q) = %v, want %v", name, got, want)
		}
	}
}
