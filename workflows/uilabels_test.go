package workflows

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A summary cut in the middle of a rune is invalid UTF-8, which the Web UI
// cannot decode: it shows no label at all.
func TestOneLineCutsAtRuneBoundary(t *testing.T) {
	got := oneLine("ab"+strings.Repeat("é", 10), 5) // "ab" + 1.5 runes in 5 bytes
	if !utf8.ValidString(got) {
		t.Fatalf("oneLine produced invalid UTF-8: %q", got)
	}
	if got != "abé…" {
		t.Fatalf("oneLine = %q, want %q", got, "abé…")
	}
	if got := oneLine("go  test\n./...", 40); got != "go test ./..." {
		t.Fatalf("oneLine = %q", got)
	}
}

func TestTurnSummaryAndDetails(t *testing.T) {
	if got := turnSummary(2, "fix\nthe build"); got != "turn 2: fix the build" {
		t.Fatalf("turnSummary = %q", got)
	}
	cfg := ThreadConfig{Model: "gpt-5.1", Harness: "codex", SandboxMode: "workspace-write", ApprovalPolicy: "on-request", Cwd: "/w"}
	cfg.Provider.ID = "openai"
	want := "model `gpt-5.1` · provider `openai` · harness `codex` · sandbox `workspace-write` · approvals `on-request` · cwd `/w`"
	if got := turnDetails(cfg); got != want {
		t.Fatalf("turnDetails = %q, want %q", got, want)
	}
}
