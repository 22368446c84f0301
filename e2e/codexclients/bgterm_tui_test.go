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

// The Codex 0.171 TUI against `interpreter dev`: a turn leaves a command
// running as a background terminal; /stop (thread/backgroundTerminals/
// clean) ends it and its processes die. (The TUI's /ps lists the
// terminals it tracks from items still in progress, and asks the server
// nothing; ours complete when exec_command returns, so /ps lists none.)
func TestCodexTUIStopsBackgroundTerminal(t *testing.T) {
	marker := "ps" + strconv.FormatInt(time.Now().UnixNano()%1e8, 36)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "start the server", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("exec_command",
				`{"cmd":"echo up-`+marker+`; while true; do sleep 0.5; done","yield_time_ms":500}`)}},
			{Text: "the server is left running"},
		}},
	}})
	dev := e.startDevNoListen()
	defer dev.Kill()
	path := filepath.Join(t.TempDir(), "ps.jsonl")
	app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
	defer app.Kill()
	u := startMenuTUI(t, e, url, path, app.Stderr.String, "-a", "never", "-s", "danger-full-access")
	u.await("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })

	u.command("start the server")
	u.awaitText("the server is left running")
	if len(bgPids(marker)) == 0 {
		t.Fatal("the command is not running after its turn")
	}
	before := u.answers()
	u.command("/stop")
	u.awaitAnswers(before, "thread/backgroundTerminals/clean")
	e2etest.WaitUntil(t, func() bool { return len(bgPids(marker)) == 0 }, 15*time.Second, "/stop to end the command", u.screen)
	checkTUITranscript(t, path)
}

// bgPids are the processes whose command line holds marker.
func bgPids(marker string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}
