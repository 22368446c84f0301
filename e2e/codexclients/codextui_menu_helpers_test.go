package codexclients

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// tuiErrorMarks are what the 0.171 TUI shows when a server call fails
// ("… failed in TUI", "Failed to …", "does not support …") or when it
// dies (a backtrace).
var tuiErrorMarks = []string{
	"unknown method", "failed in TUI", "failed during", "failed while", "■ Failed", "■ Could not",
	"does not support", "returned no inventory", "Stack backtrace", "Error: ",
}

// menuTUI is a TUI under test for one / entry after another: it keeps its
// pane after the TUI exits (remain-on-exit), so an exit and its backtrace
// stay visible, and it knows the server's transcript and log.
type menuTUI struct {
	*tmuxTUI
	transcript string
	serverLog  func() string
	// restart starts a TUI again after one died, so that one crash does
	// not hide how the later entries fare.
	restart func()
}

func startMenuTUI(t *testing.T, e *env, url, transcript string, serverLog func() string, args ...string) *menuTUI {
	t.Helper()
	tui := startTUI(t, e, url, args...)
	if out, err := exec.Command("tmux", "set-option", "-t", tui.session, "remain-on-exit", "on").CombinedOutput(); err != nil {
		t.Fatalf("tmux set-option: %v\n%s", err, out)
	}
	return &menuTUI{tmuxTUI: tui, transcript: transcript, serverLog: serverLog}
}

// history is the whole pane, scrollback included, wrapped lines joined.
func (u *menuTUI) history() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-J", "-S", "-", "-t", u.session).Output()
	return string(out)
}

// dead tells whether the TUI's process has exited.
func (u *menuTUI) dead() bool {
	out, err := exec.Command("tmux", "display-message", "-p", "-t", u.session, "#{pane_dead}").Output()
	return err != nil || strings.TrimSpace(string(out)) == "1"
}

// errorLines are the lines of the pane's history that carry an error mark.
func (u *menuTUI) errorLines() []string {
	var out []string
	for _, l := range strings.Split(u.history(), "\n") {
		for _, m := range tuiErrorMarks {
			if strings.Contains(l, m) {
				out = append(out, strings.TrimSpace(l))
				break
			}
		}
	}
	return out
}

// await waits for cond on the visible screen; it gives up early when the
// TUI has exited.
func (u *menuTUI) await(what string, cond func(screen string) bool) {
	u.t.Helper()
	e2etest.WaitUntil(u.t, func() bool { return u.dead() || cond(u.screen()) }, 45*time.Second, what, u.screen)
	if u.dead() {
		u.t.Fatalf("the TUI exited while waiting for %s:\n%s", what, u.history())
	}
}

// awaitText waits for s on the screen.
func (u *menuTUI) awaitText(s string) {
	u.t.Helper()
	u.await(fmt.Sprintf("%q on the screen", s), func(sc string) bool { return strings.Contains(sc, s) })
}

// awaitGone waits for s to leave the screen.
func (u *menuTUI) awaitGone(s string) {
	u.t.Helper()
	u.await(fmt.Sprintf("%q to leave the screen", s), func(sc string) bool { return !strings.Contains(sc, s) })
}

// command types a / command (or any composer text) and sends it. It
// sends Enter only once the composer shows the text: the TUI holds fast
// keystrokes back as a paste, and an Enter inside a paste is a newline.
func (u *menuTUI) command(text string) {
	u.t.Helper()
	u.keys("-l", text)
	u.awaitComposer(text)
	u.keys("Enter")
}

// awaitComposer waits for the composer's line to read text.
func (u *menuTUI) awaitComposer(text string) {
	u.t.Helper()
	u.await(fmt.Sprintf("the composer to read %q", text), func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			// A side conversation's composer is the right half of a line.
			if strings.HasSuffix(strings.TrimSpace(l), "› "+text) {
				return true
			}
		}
		return false
	})
}

// answers counts the server's answers (results and errors) to each client
// method in the transcript so far.
func (u *menuTUI) answers() map[string]int {
	msgs := readTranscriptIfAny(u.transcript)
	reqs := map[string]string{}
	n := map[string]int{}
	for _, m := range msgs {
		var rpc struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m.Msg, &rpc) != nil || normalID(rpc.ID) == "" {
			continue
		}
		key := fmt.Sprintf("%d/%s", m.Conn, normalID(rpc.ID))
		switch {
		case m.Dir == "in" && rpc.Method != "":
			reqs[key] = rpc.Method
		case m.Dir == "out" && rpc.Method == "":
			n[reqs[key]]++
		}
	}
	return n
}

// awaitAnswers waits until the server has answered each method once more
// than in before.
func (u *menuTUI) awaitAnswers(before map[string]int, methods ...string) {
	u.t.Helper()
	var now map[string]int
	e2etest.WaitUntil(u.t, func() bool {
		if u.dead() {
			return true
		}
		now = u.answers()
		for _, m := range methods {
			if now[m] <= before[m] {
				return false
			}
		}
		return true
	}, 45*time.Second, fmt.Sprintf("the server to answer %v", methods), func() string { return fmt.Sprint(now) + "\n" + u.screen() })
	if u.dead() {
		u.t.Fatalf("the TUI exited while waiting for %v:\n%s", methods, u.history())
	}
}

// turnsRunning is how many turns the server has started and not yet
// completed, by its notifications to the newest connection (one that
// closed mid-turn, before a restart, never sees its turn complete).
func (u *menuTUI) turnsRunning() int {
	var conn int64
	n := map[int64]int{}
	for _, m := range readTranscriptIfAny(u.transcript) {
		var note struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if m.Dir != "out" || json.Unmarshal(m.Msg, &note) != nil || normalID(note.ID) != "" {
			continue
		}
		conn = max(conn, m.Conn)
		switch note.Method {
		case "turn/started":
			n[m.Conn]++
		case "turn/completed":
			n[m.Conn]--
		}
	}
	return n[conn]
}

// reviewsDone is how many reviews the server has told its clients ended
// (item/completed of an exitedReviewMode item): the TUI may redraw and
// even clear its scrollback, so counting the review's closing line there
// can miss one.
func (u *menuTUI) reviewsDone() int {
	n := 0
	for _, m := range readTranscriptIfAny(u.transcript) {
		var note struct {
			Method string `json:"method"`
			Params struct {
				Item struct {
					Type string `json:"type"`
				} `json:"item"`
			} `json:"params"`
		}
		if m.Dir == "out" && json.Unmarshal(m.Msg, &note) == nil &&
			note.Method == "item/completed" && note.Params.Item.Type == "exitedReviewMode" {
			n++
		}
	}
	return n
}

// readTranscriptIfAny is readTranscript for a file that may not exist yet
// or end in a partial line.
func readTranscriptIfAny(path string) []transcriptMessage {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []transcriptMessage
	for _, line := range strings.Split(string(data), "\n") {
		var m transcriptMessage
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// menuEntry is one / entry: how to drive it and how it shows success.
type menuEntry struct {
	name string
	// run drives the entry; it returns once the TUI shows the entry's
	// outcome (it awaits screen text or the server's answers).
	run func(u *menuTUI)
	// exits marks the entry that ends the TUI (/logout).
	exits bool
}

// runEntries runs each entry as a subtest: the entry's own outcome, then
// the TUI is still up, shows no new error, and the server logged no new
// unknown method.
func runEntries(t *testing.T, u *menuTUI, entries []menuEntry) {
	t.Helper()
	for _, en := range entries {
		t.Run(en.name, func(t *testing.T) {
			if u.dead() {
				t.Logf("the TUI had exited; starting it again")
				u.t = t
				u.restart()
			}
			u.t = t
			u.settle()
			errsBefore := len(u.errorLines())
			logBefore := len(u.serverLog())
			en.run(u)
			if !en.exits && u.dead() {
				t.Fatalf("the TUI exited:\n%s", u.history())
			}
			if errs := u.errorLines(); len(errs) > errsBefore {
				t.Errorf("the TUI shows errors:\n%s", strings.Join(errs[errsBefore:], "\n"))
			}
			if log := u.serverLog()[logBefore:]; strings.Contains(log, "unknown method") {
				t.Errorf("the server logged unknown methods:\n%s", grepLines(log, "unknown method"))
			}
		})
	}
	u.t = t
}

// awaitMore waits until one of texts occurs in the history more often
// than it did in before (a history taken earlier); it returns that text.
func (u *menuTUI) awaitMore(before string, texts ...string) string {
	u.t.Helper()
	var got string
	e2etest.WaitUntil(u.t, func() bool {
		if u.dead() {
			return true
		}
		h := u.history()
		for _, s := range texts {
			if strings.Count(h, s) > strings.Count(before, s) {
				got = s
				return true
			}
		}
		return false
	}, 45*time.Second, fmt.Sprintf("one of %q on the screen", texts), u.screen)
	if u.dead() {
		u.t.Fatalf("the TUI exited while waiting for %q:\n%s", texts, u.history())
	}
	return got
}

// grepLines are the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// waitExit waits for the TUI's process to end. The pane dies once the
// shell that ran the TUI, and wrote its status, has ended.
func (u *menuTUI) waitExit() {
	u.t.Helper()
	e2etest.WaitUntil(u.t, u.dead, 45*time.Second, "the TUI to exit", u.screen)
}

// exitStatus is the exit status of the TUI's ended process as its shell
// saw it (128+N for signal N), or "" if it has not ended.
func (u *menuTUI) exitStatus() string {
	b, _ := os.ReadFile(u.status)
	return strings.TrimSpace(string(b))
}

// idle tells whether the composer is empty and waiting: its footer shows
// the shortcuts hint only then (not under a popup, a pager or a turn).
func idle(screen string) bool { return strings.Contains(screen, "? for shortcuts") }

// settle brings the TUI back to its idle composer before an entry: it
// waits for a running turn to end, and closes what an earlier, failed
// entry left open with Escape (never pressed at an idle composer, where
// two would open the transcript's backtrack view).
func (u *menuTUI) settle() {
	u.t.Helper()
	// The composer can look idle in the moment between two turns (a goal's
	// continuation starts as the turn before it ends): the server's
	// transcript decides whether a turn still runs.
	if u.poll(20*time.Second, func() bool { return u.dead() || (idle(u.screen()) && u.turnsRunning() == 0) }) {
		return
	}
	ready := func() bool { return u.dead() || idle(u.screen()) }
	if ready() {
		u.t.Logf("the composer is idle, but the server counts %d turns running", u.turnsRunning())
		return
	}
	for range 3 {
		u.keys("Escape")
		if u.poll(5*time.Second, ready) {
			return
		}
	}
	// Text left in the composer: delete it.
	u.keys(slices.Repeat([]string{"BSpace"}, 60)...)
	if !u.poll(5*time.Second, ready) {
		u.t.Fatalf("the TUI does not come back to its composer:\n%s", u.screen())
	}
}

// poll waits up to d for cond, checking every 50ms; it reports whether
// cond held.
func (u *menuTUI) poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}
