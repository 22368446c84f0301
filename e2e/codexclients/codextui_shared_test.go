package codexclients

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// Two Codex TUIs on one thread: the second resumes the thread the first
// started, the first runs a turn with a command, and both connections get
// the turn's item/completed events (read from the server's transcript).
func TestCodexTwoTUIsOnOneThreadBothSeeItems(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "opening prompt", Steps: []fakemodel.Step{{Text: "opening answer"}}},
		{Match: "shared prompt", Steps: []fakemodel.Step{{Shell: "echo shared-output"}, {Text: "shared answer for both"}}},
	}})
	dev := e.startDevNoListen()
	defer dev.Kill()
	path := filepath.Join(t.TempDir(), "two.jsonl")
	app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
	defer app.Kill()
	first := startTUI(t, e, url)
	first.waitFor("the first TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	first.keys("-l", "the opening prompt")
	first.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "the opening prompt") })
	first.keys("Enter")
	first.waitFor("the opening turn", func(s string) bool { return strings.Contains(s, "opening answer") })
	id := turnThread(t, path)

	second := startTUIAs(t, e, url, "second", "resume", id)
	second.waitFor("the second TUI on the thread", func(s string) bool { return strings.Contains(s, "opening answer") && strings.Contains(s, "›") })
	first.keys("-l", "the shared prompt")
	first.waitFor("the shared prompt to be typed", func(s string) bool { return strings.Contains(s, "the shared prompt") })
	first.keys("Enter")
	first.waitFor("the shared turn on the first TUI", func(s string) bool { return strings.Contains(s, "shared answer for both") })
	var got map[int64]map[string]bool
	e2etest.WaitUntil(t, func() bool { got = completedOnThread(t, path, id); return len(got) >= 2 }, 60*time.Second,
		"both connections to get the shared turn's item/completed", func() string { return fmt.Sprint(got) })
	t.Logf("the second TUI's screen:\n%s", second.screen())
	if len(got) != 2 {
		t.Fatalf("%d connections got the shared turn's command and answer, want 2: %v", len(got), got)
	}
}

// completedOnThread reads which connections of a transcript got the
// item/completed of the shared turn's command and answer (both).
func completedOnThread(t *testing.T, path, id string) map[int64]map[string]bool {
	got := map[int64]map[string]bool{}
	for _, m := range readTranscript(t, path) {
		var n struct {
			Method string `json:"method"`
			Params struct {
				ThreadID string `json:"threadId"`
				Item     struct {
					Type    string `json:"type"`
					Text    string `json:"text"`
					Command string `json:"command"`
				} `json:"item"`
			} `json:"params"`
		}
		if m.Dir != "out" || json.Unmarshal(m.Msg, &n) != nil || n.Method != "item/completed" || n.Params.ThreadID != id {
			continue
		}
		if got[m.Conn] == nil {
			got[m.Conn] = map[string]bool{}
		}
		switch it := n.Params.Item; {
		case it.Type == "commandExecution" && strings.Contains(it.Command, "echo shared-output"):
			got[m.Conn]["command"] = true
		case it.Type == "agentMessage" && it.Text == "shared answer for both":
			got[m.Conn]["answer"] = true
		}
	}
	for conn, seen := range got {
		if !seen["command"] || !seen["answer"] {
			delete(got, conn)
		}
	}
	return got
}
