package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// With [memories] enabled, an idle thread's memory is extracted, `memory
// consolidate` merges it into MEMORY.md, a MEMORY.md edited into something
// unparsable is kept aside, reported and rebuilt, and a new thread starts
// with the memory in its instructions.
func TestMemoryConsolidateCommand(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "Memory extraction:", Steps: []fakemodel.Step{{Text: "SUMMARY: tidy\n- The user wants commit messages in the imperative"}}},
		{Match: "first", Steps: []fakemodel.Step{{Text: "first done"}}},
		{Match: "second task", Steps: []fakemodel.Step{{Text: "second done"}}},
	}})
	cfg := "[memories]\nenabled = true\nidle_after = \"1s\"\n"
	if err := os.WriteFile(filepath.Join(e.Home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	dev := e.StartDev()
	defer dev.Kill()
	if code := e.Exec("first task").Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d", code)
	}
	rawDir := filepath.Join(e.Home, "memories", "raw")
	e2etest.WaitUntil(t, func() bool { m, _ := filepath.Glob(filepath.Join(rawDir, "*.json")); return len(m) == 1 }, 30*time.Second,
		"the raw memory", func() string { return dev.Stderr.String() })

	consolidate := func() (int, string, string) {
		p := e.Start(append(append([]string{"memory", "consolidate"}, e.Config()...), "-c", "temporal.embedded=false")...)
		code := p.Wait(60 * time.Second)
		return code, p.Stdout.String(), p.Stderr.String()
	}
	code, out, errOut := consolidate()
	if code != 0 || !strings.Contains(out, "MEMORY.md: 1 entries (1 new") || !strings.Contains(out, "1 raw memories merged") {
		t.Fatalf("memory consolidate: exit %d\n%s\n%s", code, out, errOut)
	}
	md := filepath.Join(e.Home, "memories", "MEMORY.md")
	if err := os.WriteFile(md, []byte("- broken <!-- uses=many\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = consolidate()
	if code != 0 || !strings.Contains(errOut, "did not parse") || !strings.Contains(errOut, "MEMORY.md.broken-") {
		t.Fatalf("consolidate of a broken MEMORY.md: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "commit messages in the imperative <!-- uses=1") {
		t.Fatalf("MEMORY.md was not rebuilt:\n%s", b)
	}

	if code := e.Exec("the second task").Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d", code)
	}
	next := e.Model.Server.RequestsContaining("the second task")
	if len(next) == 0 || !strings.Contains(string(next[0].Body), "commit messages in the imperative") {
		t.Fatal("the new thread did not start with the memory")
	}
}
