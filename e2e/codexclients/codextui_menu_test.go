package codexclients

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// The model of the menu test: a first turn, a recap answer in the JSON
// the TUI asks for, a side question, and for anything else (the review
// turns, the title side thread, goal turns) a review verdict in Codex's
// review-output JSON.
var menuScript = &fakemodel.Script{Turns: []fakemodel.Turn{
	// The recap's prompt quotes the conversation ("menu hello"): it goes
	// first.
	{Match: "catch-up", Steps: []fakemodel.Step{{Text: `{"summary":"menu recap summary","next_action":null}`}}},
	{Match: "menu hello", Steps: []fakemodel.Step{{Text: "menu hello answer"}}},
	{Match: "menu side question", Steps: []fakemodel.Step{{Text: "menu side answer"}}},
	{Steps: []fakemodel.Step{{Text: `{"findings":[],"overall_correctness":"patch is correct",` +
		`"overall_explanation":"menu review found nothing","overall_confidence_score":0.9}`}}},
}}

// Every entry of the Codex 0.171 TUI's / menu that talks to the server,
// in one TUI against `interpreter app-server` on `interpreter dev`, in a
// git repository with an uncommitted change: each entry runs, shows its
// outcome as Codex's own server makes it show, leaves the TUI up with no
// error on screen, and the server logs no unknown method. /logout ends the
// TUI as it does with Codex. Then every message of the session, both
// ways, validates against the 0.171 schemas and no request got an
// unknown-method error. (What Codex's server sends for each entry:
// /work/coord/tui-methods.md of session 10, recorded with dev/wsrecord.)
func TestCodexTUIMenuEntries(t *testing.T) {
	e := newEnv(t, menuScript)
	menuRepo(t, e.Work)
	dev := e.startDevNoListen()
	defer dev.Kill()
	path := filepath.Join(t.TempDir(), "menu.jsonl")
	app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
	defer app.Kill()
	start := func() *menuTUI {
		u := startMenuTUI(t, e, url, path, app.Stderr.String)
		u.await("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
		return u
	}
	u := start()
	u.restart = func() {
		sub, restart := u.t, u.restart
		u.close()
		*u = *start()
		u.t, u.restart = sub, restart
	}

	runEntries(t, u, menuEntries)
	runEntries(t, u, []menuEntry{{name: "logout", run: logoutEntry, exits: true}})

	sum := checkTUITranscript(t, path)
	for _, line := range sum.ErrorText {
		if strings.Contains(line, "unknown method") || strings.Contains(line, "-32601") {
			t.Errorf("a request got an unknown-method error: %s", line)
		}
	}
	for _, m := range []string{"review/start", "config/batchWrite", "skills/config/write", "permissionProfile/list",
		"hooks/list", "plugin/list", "externalAgentConfig/detect", "thread/search", "thread/inject_items",
		"thread/goal/set", "thread/goal/clear", "thread/backgroundTerminals/clean", "thread/delete", "account/logout"} {
		if sum.Results[m] == 0 {
			t.Errorf("%s never got a result (errors: %d)", m, sum.Errors[m])
		}
	}
}

// menuRepo makes dir a git repository with one commit, a second branch
// and an uncommitted change, for /diff and each /review target.
func menuRepo(t *testing.T, dir string) {
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=menu@example.com", "-c", "user.name=menu"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "menu.txt"), []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "menu.txt")
	git("commit", "-q", "-m", "menu commit")
	git("branch", "menu-base")
	if err := os.WriteFile(filepath.Join(dir, "menu.txt"), []byte("first line\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// menuEntries are the entries in the order a session meets them: a turn
// first (for /compact, /fork, /review, /side, /recap), /delete late.
var menuEntries = []menuEntry{
	{name: "turn", run: func(u *menuTUI) {
		u.command("menu hello")
		u.awaitText("menu hello answer")
	}},
	{name: "status", run: func(u *menuTUI) {
		u.command("/status")
		u.awaitText("Session:")
	}},
	{name: "mcp", run: func(u *menuTUI) {
		before := u.answers()
		u.command("/mcp")
		u.awaitAnswers(before, "mcpServerStatus/list")
		u.awaitText("MCP")
	}},
	{name: "diff", run: func(u *menuTUI) {
		u.command("/diff")
		u.awaitText("second line")
		u.keys("q")
		u.awaitGone("q close")
	}},
	{name: "ps", run: func(u *menuTUI) {
		h := u.history()
		u.command("/ps")
		u.awaitMore(h, "Background terminals")
	}},
	{name: "rename", run: func(u *menuTUI) {
		before := u.answers()
		u.command("/rename menu renamed")
		u.awaitAnswers(before, "thread/name/set")
	}},
	{name: "compact", run: func(u *menuTUI) {
		h := u.history()
		u.command("/compact")
		u.awaitMore(h, "Context compacted")
	}},
	{name: "model", run: modelEntry},
	{name: "memories", run: func(u *menuTUI) {
		before := u.answers()
		u.command("/memories")
		u.awaitText("Enable memories?")
		u.keys("Enter")
		u.awaitAnswers(before, "config/batchWrite")
		u.awaitGone("Enable memories?")
	}},
	{name: "skills", run: skillsEntry},
	{name: "permissions", run: permissionsEntry},
	{name: "hooks", run: func(u *menuTUI) {
		h := u.history()
		u.command("/hooks")
		u.awaitMore(h, "PreToolUse", "Failed to load hooks")
		u.keys("Escape")
	}},
	{name: "plugins", run: func(u *menuTUI) {
		h := u.history()
		u.command("/plugins")
		u.awaitMore(h, "Browse plugins", "plugin/list failed")
		u.keys("Escape")
	}},
	{name: "import", run: func(u *menuTUI) {
		h := u.history()
		u.command("/import")
		u.awaitMore(h, "No compatible setup was found", "Could not check for importable setup")
	}},
	{name: "mention", run: func(u *menuTUI) {
		before := u.answers()
		u.keys("-l", "@menu")
		u.awaitAnswers(before, "thread/search")
		u.awaitText("menu.txt")
		u.keys("Escape")
		u.keys(slices.Repeat([]string{"BSpace"}, len("@menu"))...)
		u.await("the composer to be empty", idle)
	}},
	{name: "side", run: sideEntry},
	{name: "recap", run: func(u *menuTUI) {
		h := u.history()
		u.command("/recap")
		u.awaitMore(h, "menu recap summary", "Could not generate a recap")
	}},
	{name: "goal", run: goalEntry},
	{name: "review uncommitted", run: func(u *menuTUI) { reviewEntry(u, "Down", "Enter") }},
	{name: "review base branch", run: func(u *menuTUI) {
		reviewEntry(u, "Enter", "@Select a base branch", "@menu-base", "Down", "Enter")
	}},
	{name: "review commit", run: func(u *menuTUI) {
		reviewEntry(u, "Down", "Down", "Enter", "@Select a commit to review", "Enter")
	}},
	{name: "review custom", run: func(u *menuTUI) {
		reviewEntry(u, "Down", "Down", "Down", "Enter", "@Custom review instructions", "=look for typos", "Enter")
	}},
	{name: "stop", run: func(u *menuTUI) {
		before, h := u.answers(), u.history()
		u.command("/stop")
		u.awaitAnswers(before, "thread/backgroundTerminals/clean")
		u.awaitMore(h, "Stopping all background terminals")
	}},
	{name: "fork", run: func(u *menuTUI) {
		h := u.history()
		u.command("/fork")
		u.awaitMore(h, "Fork created")
	}},
	{name: "delete", run: func(u *menuTUI) {
		before := u.answers()
		u.command("/delete")
		u.awaitText("Delete this session?")
		u.keys("Down")
		u.keys("Enter")
		u.awaitAnswers(before, "thread/delete")
		// Codex opens its agent command center after a delete; n starts a
		// new session there.
		u.awaitText("n new")
		started := u.answers()
		u.keys("n")
		u.awaitAnswers(started, "thread/start")
		u.awaitGone("n new")
		u.await("the new session's composer", idle)
	}},
}

// modelEntry picks the first model and its default effort, which Codex
// saves as the default (config/batchWrite).
func modelEntry(u *menuTUI) {
	before, h := u.answers(), u.history()
	u.command("/model")
	u.awaitText("Select Model")
	u.keys("Enter")
	u.await("the effort popup or the popup closed", func(s string) bool {
		return strings.Contains(s, "Select Reasoning") || !strings.Contains(s, "Select Model")
	})
	if strings.Contains(u.screen(), "Select Reasoning") {
		u.keys("Enter")
	}
	u.awaitAnswers(before, "config/batchWrite")
	u.awaitMore(h, "Model changed to", "Failed to save default model")
}

// skillsEntry turns the first skill off in /skills (skills/config/write).
func skillsEntry(u *menuTUI) {
	before, h := u.answers(), u.history()
	u.command("/skills")
	u.awaitText("Enable/Disable Skills")
	u.keys("Down")
	u.keys("Enter")
	u.awaitText("space/enter toggle")
	u.keys("Space")
	u.keys("Escape")
	u.awaitAnswers(before, "skills/config/write")
	u.awaitMore(h, "Disabled 1 skill", "Failed to update skill config")
}

// permissionsEntry opens /permissions, which lists the server's profiles
// (permissionProfile/list), and keeps the first preset.
func permissionsEntry(u *menuTUI) {
	before := u.answers()
	u.command("/permissions")
	u.awaitAnswers(before, "permissionProfile/list")
	u.awaitText("Update Model Permissions")
	u.await("the presets or an error", func(s string) bool {
		return strings.Contains(s, "1. ") && !strings.Contains(s, "Loading")
	})
	if s := u.screen(); strings.Contains(s, "does not support") {
		u.t.Errorf("/permissions shows no profiles:\n%s", s)
		u.keys("Escape")
		return
	}
	// Choosing the current profile changes nothing (the TUI sends no
	// update): choose another one, by its number.
	pick := "1"
	if strings.Contains(u.screen(), "Ask for approval (current)") {
		pick = "4"
	}
	u.keys(pick)
	u.awaitAnswers(before, "thread/settings/update")
	u.awaitGone("Update Model Permissions")
}

// sideEntry opens a side conversation (thread/fork + thread/inject_items),
// asks in it, and closes it.
func sideEntry(u *menuTUI) {
	before := u.answers()
	u.command("/side")
	u.awaitAnswers(before, "thread/inject_items")
	u.awaitText("Side from main thread")
	if strings.Contains(u.screen(), "Failed to prepare side conversation") {
		u.t.Fatalf("/side failed:\n%s", u.screen())
	}
	u.command("menu side question")
	u.awaitText("menu side answer")
	u.keys("C-c")
	u.awaitGone("Side from main thread")
}

// goalEntry sets a goal and clears it.
func goalEntry(u *menuTUI) {
	before := u.answers()
	u.command("/goal menu goal objective")
	u.awaitAnswers(before, "thread/goal/set")
	u.command("/goal clear")
	u.awaitAnswers(before, "thread/goal/clear")
	u.awaitGone("Pursuing goal")
}

// reviewEntry opens /review and drives its popups: keys, "@TEXT" waits
// for TEXT, "=TEXT" types TEXT. The review must run as a turn (review/start)
// and finish on screen.
func reviewEntry(u *menuTUI, steps ...string) {
	before, done := u.answers(), u.reviewsDone()
	u.command("/review")
	u.awaitText("Select a review preset")
	for _, s := range steps {
		switch {
		case strings.HasPrefix(s, "@"):
			u.awaitText(s[1:])
		case strings.HasPrefix(s, "="):
			u.keys("-l", s[1:])
			u.awaitComposer(s[1:])
		default:
			u.keys(s)
		}
	}
	// An Enter the TUI took for part of a typed paste leaves the custom
	// instructions open: it is pressed again while they show and the
	// review has not started (one look at the screen may catch it
	// mid-redraw, without the popup's title).
	started := func() bool { return u.answers()["review/start"] > before["review/start"] }
	for i := 0; i < 5 && !u.poll(2*time.Second, started); i++ {
		if strings.Contains(u.screen(), "Custom review instructions") {
			u.keys("Enter")
		}
	}
	u.awaitAnswers(before, "review/start")
	u.await("the review to finish", func(string) bool { return u.reviewsDone() > done })
	// The screen shows the end of this review: its closing line and verdict
	// come after its opening line.
	u.await("the review's end on the screen", func(sc string) bool {
		i := strings.LastIndex(sc, "Code review started")
		return i >= 0 && strings.Contains(sc[i:], "Code review finished") && strings.Contains(sc[i:], "menu review found nothing")
	})
}

// logoutEntry: /logout logs out (account/logout) and ends the TUI with
// status 0, as with Codex's own server.
func logoutEntry(u *menuTUI) {
	before := u.answers()
	u.command("/logout")
	u.waitExit()
	if got := u.answers(); got["account/logout"] <= before["account/logout"] {
		u.t.Errorf("account/logout was not answered")
	}
	if st := u.exitStatus(); st != "0" {
		u.t.Errorf("the TUI exited with status %q:\n%s", st, u.history())
	}
}
