package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"key sk-proj-abcdefghijklmnop1234 here", "key [REDACTED] here"},
		{"OPENAI_API_KEY=abc123 go", "OPENAI_API_KEY=[REDACTED] go"},
		{`password: "hunter2"`, `password: [REDACTED]`},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123", "token [REDACTED]"},
		{"AKIAABCDEFGHIJKLMNOP in env", "[REDACTED] in env"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwx", "Authorization: [REDACTED]"},
		{"the user prefers tabs", "the user prefers tabs"},
	}
	for _, c := range cases {
		got, n := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if (n > 0) != (c.in != c.want) {
			t.Errorf("Redact(%q) counted %d", c.in, n)
		}
	}
}

func TestParseRawMemory(t *testing.T) {
	s, f := parseRawMemory("SUMMARY: fixed the build\n- uses  go 1.27\n* tabs, not spaces\nnoise\n")
	if s != "fixed the build" || len(f) != 2 || f[0] != "uses go 1.27" || f[1] != "tabs, not spaces" {
		t.Fatalf("%q %q", s, f)
	}
	if s, f := parseRawMemory(" NONE "); s != "" || f != nil {
		t.Fatalf("NONE: %q %q", s, f)
	}
}

func writeRaw(t *testing.T, dir, name string, created time.Time, facts ...string) {
	t.Helper()
	b, _ := json.Marshal(rawMemory{ThreadID: name, Created: created, Facts: facts})
	if err := os.MkdirAll(filepath.Join(dir, "raw"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "raw", name+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestConsolidateMemories(t *testing.T) {
	dir := t.TempDir()
	a := &Activities{MemoryDir: dir}
	now := time.Date(2026, 8, 10, 12, 0, 0, 0, time.UTC)
	writeRaw(t, dir, "a", now.AddDate(0, 0, -2), "Runs tests with make test", "Prefers tabs.")
	writeRaw(t, dir, "b", now.AddDate(0, 0, -1), "prefers tabs", "Works on project X")
	writeRaw(t, dir, "old", now.AddDate(0, 0, -45), "Used Python 2")
	ctx := context.Background()

	out, err := a.ConsolidateMemories(ctx, ConsolidateInput{MaxUnusedDays: 30, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if out.Merged != 3 || out.Added != 4 || out.Dropped != 1 || out.Entries != 3 {
		t.Fatalf("first consolidation: %+v", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, MemoryFile))
	lines := strings.Split(string(b), "\n")
	var entries []string
	for _, l := range lines {
		if strings.HasPrefix(l, "- ") {
			entries = append(entries, l)
		}
	}
	if len(entries) != 3 || entries[0] != "- Prefers tabs. <!-- uses=2 last=2026-08-09 -->" {
		t.Fatalf("MEMORY.md:\n%s", b)
	}

	// Again: nothing is counted twice; a line added by hand is kept.
	if err := os.WriteFile(filepath.Join(dir, MemoryFile), append(b, []byte("- Hand-written fact\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = a.ConsolidateMemories(ctx, ConsolidateInput{MaxUnusedDays: 30, Now: now})
	if err != nil || out.Merged != 0 || out.Entries != 4 {
		t.Fatalf("second consolidation: %+v %v", out, err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, MemoryFile))
	if !strings.Contains(string(b), "- Prefers tabs. <!-- uses=2") || !strings.Contains(string(b), "- Hand-written fact <!-- uses=1 last=2026-08-10 -->") {
		t.Fatalf("MEMORY.md after a second run:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "raw", "old.json")); !os.IsNotExist(err) {
		t.Fatalf("an old merged raw memory was kept: %v", err)
	}

	summary, err := a.LoadMemory(ctx)
	if err != nil || !strings.Contains(summary, "- Prefers tabs.\n") || strings.Contains(summary, "uses=") {
		t.Fatalf("LoadMemory: %q %v", summary, err)
	}

	// Edited into something unparsable: kept aside, reported, rebuilt.
	broken := "# Memory\n- Prefers tabs. <!-- uses=lots\n"
	if err := os.WriteFile(filepath.Join(dir, MemoryFile), []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, _ := a.LoadMemory(ctx); s != "" {
		t.Fatalf("a broken MEMORY.md was given to a thread: %q", s)
	}
	out, err = a.ConsolidateMemories(ctx, ConsolidateInput{MaxUnusedDays: 30, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if out.Broken == "" || !strings.Contains(out.Problem, "line 2") || out.Merged != 2 || out.Entries != 3 {
		t.Fatalf("rebuild: %+v", out)
	}
	if kept, _ := os.ReadFile(out.Broken); string(kept) != broken {
		t.Fatalf("the broken file was not kept as it was: %q", kept)
	}
	b, _ = os.ReadFile(filepath.Join(dir, MemoryFile))
	if !strings.Contains(string(b), "- Prefers tabs. <!-- uses=2") {
		t.Fatalf("rebuilt MEMORY.md:\n%s", b)
	}
}
