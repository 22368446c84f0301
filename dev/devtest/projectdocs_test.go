package devtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A turn in repo/sub of a git repository shows the model the user's
// AGENTS.md and both of the repository's, in Codex's order, in one user
// message before the prompt. The next turn does not repeat them; after a
// file changes, the turn after shows them again.
func TestAgentsMDInNestedDirectory(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "noted"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	repo := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(repo, "sub")
	writeFiles(t, map[string]string{
		filepath.Join(repo, ".git", "HEAD"):                   "ref: refs/heads/main\n",
		filepath.Join(repo, "AGENTS.md"):                      "ROOT-RULES\n",
		filepath.Join(sub, "AGENTS.md"):                       "SUB-RULES\n",
		filepath.Join(w.Dir, "interpreter-home", "AGENTS.md"): "USER-RULES\n",
		filepath.Join(filepath.Dir(repo), "AGENTS.md"):        "OUTSIDE-THE-REPO\n",
	})
	cfg := w.Config("")
	cfg.Cwd = sub
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, res := w.RunTurn(ctx, cfg, "first prompt")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn 1 %s: %s", res.Status, res.Error)
	}
	want := "# AGENTS.md instructions for " + sub + "\n\n<INSTRUCTIONS>\nUSER-RULES\n\n--- project-doc ---\n\nROOT-RULES\n\n\nSUB-RULES\n\n</INSTRUCTIONS>"
	first := userTexts(t, w.Model.Server.Requests()[0].Body)
	if len(first) != 2 || first[0] != want || first[1] != "first prompt" {
		t.Fatalf("first request's user messages:\n%q\nwant the instructions then the prompt:\n%q", first, want)
	}
	if got := strings.Join(res.InstructionSources, ","); got != strings.Join([]string{
		filepath.Join(w.Dir, "interpreter-home", "AGENTS.md"), filepath.Join(repo, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")}, ",") {
		t.Fatalf("instruction sources %s", got)
	}

	next := func(prompt string) []string {
		t.Helper()
		resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		if r := w.WaitTurn(ctx, id, resp.TurnID); r.Status != workflows.StatusCompleted {
			t.Fatalf("%s: %s %s", prompt, r.Status, r.Error)
		}
		reqs := w.Model.Server.Requests()
		return userTexts(t, reqs[len(reqs)-1].Body)
	}
	if got := next("second prompt"); strings.Count(strings.Join(got, "\n"), "<INSTRUCTIONS>") != 1 || got[len(got)-1] != "second prompt" {
		t.Fatalf("second turn's user messages: %q", got)
	}
	if err := os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte("SUB-RULES-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := next("third prompt")
	if n := len(got); n < 2 || !strings.Contains(got[n-2], "SUB-RULES-2") || got[n-1] != "third prompt" {
		t.Fatalf("third turn's user messages: %q", got)
	}
}

func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// userTexts are the texts of a Responses request's user messages, in
// order.
func userTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range req.Input {
		if it.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(it.Content, &s) == nil {
			out = append(out, s)
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Content, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		out = append(out, b.String())
	}
	return out
}
