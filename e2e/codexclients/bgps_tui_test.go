package codexclients

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The Codex 0.171 TUI's /ps lists the command items it saw start (as
// unified exec, with a process id) and not complete: a command left
// running after its turn is listed; once its process exits the server
// completes the item and /ps lists nothing.
func TestCodexTUIPsListsBackgroundTerminal(t *testing.T) {
	marker := "bps" + strconv.FormatInt(time.Now().UnixNano()%1e8, 36)
	stop := filepath.Join(t.TempDir(), "stop-"+marker)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "start the server", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("exec_command",
				`{"cmd":"echo up-`+marker+`; while [ ! -e `+stop+` ]; do sleep 0.2; done; echo bye","yield_time_ms":500}`)}},
			{Text: "the server is left running"},
		}},
		{Steps: []fakemodel.Step{{Text: "noted the exit"}}},
	}})
	dev := e.startDevNoListen()
	defer dev.Kill()
	path := filepath.Join(t.TempDir(), "bps.jsonl")
	app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
	defer app.Kill()
	u := startMenuTUI(t, e, url, path, app.Stderr.String, "-a", "never", "-s", "danger-full-access")
	u.await("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })

	u.command("start the server")
	u.awaitText("the server is left running")
	before := u.history()
	u.command("/ps")
	if got := u.awaitMore(before, "No background terminals running", "↳ up-"+marker); got != "↳ up-"+marker {
		t.Fatalf("/ps does not list the running command:\n%s", u.screen())
	}

	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitUntil(t, func() bool { return len(bgPids(marker)) == 0 }, 15*time.Second, "the command to exit", u.screen)
	u.awaitText("noted the exit")
	before = u.history()
	u.command("/ps")
	u.awaitMore(before, "No background terminals running")
	checkTUITranscript(t, path)
}
