package exec

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A started-command record an ended turn could not forget (say, its
// closing task ran on another host's worker) is removed when a worker
// starts; the record of a turn the server still runs, or does not know,
// stays.
func TestWorkerStartSweepsRecordsOfEndedTurns(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "done"}}}}})
	dev := e.StartDev()
	run := e.Exec("--json", "a prompt")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	// exec answers at the turn's end, a task before its run closes: the
	// record is of an ended turn once its thread has taken it in.
	e2etest.WaitUntil(t, func() bool {
		_, out, _ := e.threads("show", id)
		return strings.Contains(out, "turn 1 · completed")
	}, 30*time.Second, "the thread to take its turn in", func() string { return "" })
	dev.Kill()

	dir := filepath.Join(e.Home, "started-commands")
	leave := func(turn string) string {
		d := filepath.Join(dir, url.PathEscape(turn))
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "call_left"), []byte("1 then\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ended, unknown := leave(id+"/turn-1"), leave("no-such-thread/turn-1")
	dev = e.StartDev()
	defer dev.Kill()
	e2etest.WaitUntil(t, func() bool {
		_, err := os.Stat(ended)
		return os.IsNotExist(err)
	}, 30*time.Second, "the ended turn's records to be swept", func() string { ls, _ := os.ReadDir(dir); return fmt.Sprint(ended, ls, dev.Stderr.String()) })
	if _, err := os.Stat(filepath.Join(unknown, "call_left")); err != nil {
		t.Fatalf("the record of a turn the server does not know was removed: %v", err)
	}
}
