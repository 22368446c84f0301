package codexclients

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The TUI's own approval prompt: under the policy the TUI sends on
// thread/start and again on turn/start (on-request, read-only: Codex 0.171
// offers only on-request and never), the model asks to run a command
// without the sandbox; the turn waits for the user, the TUI shows its
// prompt, a key approves, and the command runs once.
func TestCodexTUIApprovesACommand(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "make the file", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: fakemodel.ShellToolName, Arguments: json.RawMessage(
				`{"command":["bash","-lc","touch approved-in-the-tui"],"with_escalated_permissions":true,"justification":"the user asked for the file"}`)}}},
			{Text: "the approved command ran"},
		}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "none"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	app, url := e.listenApp("ws://127.0.0.1:0")
	defer app.Kill()
	tui := startTUI(t, e, url)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "please make the file")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "please make the file") })
	tui.keys("Enter")
	tui.waitFor("the TUI's approval prompt", func(s string) bool {
		return strings.Contains(s, "touch approved-in-the-tui") && strings.Contains(s, "Yes, proceed")
	})
	if _, err := os.Stat(e.Work + "/approved-in-the-tui"); err == nil {
		t.Fatalf("the command ran before it was approved")
	}
	tui.keys("y")
	tui.waitFor("the turn to finish", func(s string) bool { return strings.Contains(s, "the approved command ran") })
	if _, err := os.Stat(e.Work + "/approved-in-the-tui"); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if out := app.Stderr.String(); strings.Contains(out, "unknown method") {
		t.Errorf("the TUI called methods the server does not know:\n%s", out)
	}
}

// A SIGKILL of the app-server, then a new app-server on the same address
// and a new TUI with `codex --remote URL resume ID`: it shows the thread
// with its turns, and its next turn carries the history.
func TestCodexTUIResumeAfterAppServerKill(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "before the kill", Steps: []fakemodel.Step{{Text: "first answer before the kill"}}},
		{Match: "after the resume", Steps: []fakemodel.Step{{Text: "second answer after the resume"}}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "none"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("ws://127.0.0.1:%d", port)
	app, _ := e.listenApp(addr)
	tui := startTUI(t, e, addr)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "the prompt before the kill")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "the prompt before the kill") })
	tui.keys("Enter")
	tui.waitFor("the first answer", func(s string) bool { return strings.Contains(s, "first answer before the kill") })

	// The thread's id, as any client reads it.
	reader := e.AppServer(e2etest.LoadSchema(t))
	reader.Handshake()
	list, _ := reader.Call("thread/list", map[string]any{})
	reader.Kill()
	// The TUI's own thread, not its title side thread.
	id := ""
	for _, th := range list["data"].([]any) {
		if th := th.(map[string]any); strings.Contains(fmt.Sprint(th["preview"]), "the prompt before the kill") {
			id = th["id"].(string)
		}
	}
	if id == "" {
		t.Fatalf("the TUI's thread is not in thread/list: %v", list)
	}

	app.Kill()
	tui.close()
	again, _ := e.listenApp(addr)
	defer again.Kill()
	resumed := startTUI(t, e, addr, "resume", id)
	resumed.waitFor("the resumed thread's turn", func(s string) bool {
		return strings.Contains(s, "the prompt before the kill") && strings.Contains(s, "first answer before the kill")
	})
	resumed.keys("-l", "the prompt after the resume")
	resumed.waitFor("the second prompt to be typed", func(s string) bool { return strings.Contains(s, "the prompt after the resume") })
	resumed.keys("Enter")
	resumed.waitFor("the second answer", func(s string) bool { return strings.Contains(s, "second answer after the resume") })
	reqs := e.Model.Server.RequestsContaining("the prompt after the resume")
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), "first answer before the kill") {
		t.Fatalf("the turn after the resume did not carry the first turn (%d requests)", len(reqs))
	}
	if out := again.Stderr.String(); strings.Contains(out, "unknown method") {
		t.Errorf("the resumed TUI called methods the server does not know:\n%s", out)
	}
}

// The TUI's /compact runs the thread's compaction (the model is asked for
// the summary) and the next turn sends the summary instead of the old
// transcript.
func TestCodexTUICompact(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "COMPACT-NOW", Steps: []fakemodel.Step{{Text: "SUMMARY-XYZ of the thread"}}},
		{Match: "alpha", Steps: []fakemodel.Step{{Shell: "echo turn-one-output"}, {Text: "first done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{Text: "second done"}}},
	}})
	dev := e.Start(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "none"}, e.Config()...)...)
	defer dev.Kill()
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	app, url := e.listenApp("ws://127.0.0.1:0", "-c", `compact_prompt="COMPACT-NOW: summarize"`)
	defer app.Kill()
	tui := startTUI(t, e, url)
	tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
	tui.keys("-l", "first prompt alpha")
	tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "first prompt alpha") })
	tui.keys("Enter")
	// The TUI refuses /compact until turn/completed ("Worked for"), which
	// may come a moment after the answer shows.
	tui.waitFor("the first turn to end", func(s string) bool { return strings.Contains(s, "first done") && strings.Contains(s, "Worked for") })
	tui.keys("-l", "/compact")
	tui.waitFor("/compact to be typed", func(s string) bool { return strings.Contains(s, "/compact") })
	tui.keys("Enter")
	e2etest.WaitUntil(t, func() bool { return len(e.Model.Server.RequestsContaining("COMPACT-NOW: summarize")) == 1 }, 60*time.Second,
		"the compaction's model call", tui.screen)
	tui.keys("-l", "second prompt beta")
	tui.waitFor("the second prompt to be typed", func(s string) bool { return strings.Contains(s, "second prompt beta") })
	tui.keys("Enter")
	tui.waitFor("the second answer", func(s string) bool { return strings.Contains(s, "second done") })
	req, _ := e.Model.Server.LastRequest()
	if body := string(req.Body); !strings.Contains(body, "SUMMARY-XYZ") || strings.Contains(body, "turn-one-output") {
		t.Fatalf("the turn after /compact sent:\n%s", body)
	}
	if out := app.Stderr.String(); strings.Contains(out, "unknown method") {
		t.Errorf("the TUI called methods the server does not know:\n%s", out)
	}
}
