package codexclients

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// Plan mode in the Codex TUI: Shift+Tab switches it on, the turn carries
// the plan instructions and request_user_input, the model's question
// comes up in the TUI's own question prompt, a key answers it, and the
// model reads the answer.
func TestCodexTUIPlanModeAsksTheUser(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "paint the wall", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "request_user_input", Arguments: json.RawMessage(
				`{"questions":[{"id":"color","header":"Color","question":"Which color should the wall be?","options":[{"label":"Red (Recommended)","description":"warm"},{"label":"Blue","description":"cool"}]}]}`)}}},
			{Text: "the plan uses the chosen color"},
		}},
	}})
	dev := e.startDevNoListen()
	defer dev.Kill()
	app, url := e.listenApp("ws://127.0.0.1:0")
	defer app.Kill()
	tui := startTUI(t, e, url)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	// A Shift+Tab that comes while the TUI still draws its start-up screen
	// is lost (seen once in CI): press it again until plan mode shows.
	deadline := time.Now().Add(60 * time.Second)
	for {
		tui.keys("BTab")
		if waitScreen(tui, 5*time.Second, func(s string) bool { return strings.Contains(s, "Plan mode") }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for plan mode\n%s", tui.screen())
		}
	}
	tui.keys("-l", "paint the wall")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "paint the wall") })
	tui.keys("Enter")
	tui.waitFor("the model's question", func(s string) bool {
		return strings.Contains(s, "Which color should the wall be?") && strings.Contains(s, "2. Blue")
	})
	tui.keys("Down")
	tui.keys("Enter")
	tui.waitFor("the turn to finish", func(s string) bool { return strings.Contains(s, "the plan uses the chosen color") })

	answered := e.Model.Server.RequestsContaining("color: Blue")
	if len(answered) != 1 {
		t.Fatalf("the model read the answer in %d requests, want 1", len(answered))
	}
	body := string(answered[0].Body)
	for _, want := range []string{"<collaboration_mode># Plan mode", `"name":"request_user_input"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the plan-mode request lacks %s", want)
		}
	}
	if out := app.Stderr.String(); strings.Contains(out, "unknown method") {
		t.Errorf("the TUI called methods the server does not know:\n%s", out)
	}
}

// waitScreen tells whether the TUI's screen meets cond within d.
func waitScreen(u *tmuxTUI, d time.Duration, cond func(string) bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond(u.screen()) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cond(u.screen())
}
