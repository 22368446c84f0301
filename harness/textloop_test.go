package harness_test

import (
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

// finish runs a text-loop harness over one reply and decodes what it asks.
func finish(t *testing.T, name string, conv []harness.Entry, reply string) (harness.Answer, []harness.Invocation) {
	t.Helper()
	h, err := harness.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := h.(harness.Finisher)
	if !ok || !h.Info().TextLoop || len(h.Tools()) != 0 {
		t.Fatalf("%s is not a text loop", name)
	}
	ans := f.Finish(conv, harness.Answer{Entries: []harness.Entry{{Kind: harness.KindAssistant, Text: reply}}}, "text-t-1")
	var invs []harness.Invocation
	for _, c := range ans.ToolCalls() {
		invs = append(invs, h.Decode(c))
	}
	return ans, invs
}

var prompt = []harness.Entry{{Kind: harness.KindUser, Text: "fix the test"}}

// Zero, one and two commands, and the declared end, for each text loop.
func TestTextLoopReplies(t *testing.T) {
	cases := []struct {
		harness          string
		zero, one, two   string
		oneCommand, done string
	}{
		{
			harness: "swe-agent",
			zero:    "DISCUSSION\nI think the bug is in Add.",
			one:     "DISCUSSION\nLet me look.\n\n```\ngrep -n Add calc.go\n```\n",
			two:     "DISCUSSION\nTwo things.\n```\nls\n```\nand\n```\npwd\n```",
			done:    "DISCUSSION\nAll fixed.\n```\nsubmit\n```",

			oneCommand: "grep -n Add calc.go",
		},
		{
			harness: "mini-swe-agent",
			zero:    "THOUGHT: the bug is in Add; nothing to run.",
			one:     "THOUGHT: look at the file.\n\n```bash\ncat calc.go | head -20\n```",
			two:     "THOUGHT: two.\n```bash\nls\n```\n```bash\npwd\n```",
			done:    "THOUGHT: done.\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",

			oneCommand: "cat calc.go | head -20",
		},
		{
			harness: "terminus-2",
			zero:    "I believe the task is about Add.",
			one:     "```json\n{\"analysis\":\"a\",\"plan\":\"p\",\"commands\":[{\"keystrokes\":\"cd src\\n\",\"duration\":0.1},{\"keystrokes\":\"go test ./...\\n\",\"duration\":5}],\"task_complete\":false}\n```",
			two:     `{"analysis":"a","plan":"p","commands":[{"keystrokes":"ls","duration":0.1},{"keystrokes":"pwd\n","duration":0.1}],"task_complete":false}`,
			done:    `{"analysis":"done","plan":"","commands":[],"task_complete":true}`,

			oneCommand: "cd src\ngo test ./...",
		},
	}
	for _, c := range cases {
		t.Run(c.harness, func(t *testing.T) {
			// One command: it runs as a shell command.
			ans, invs := finish(t, c.harness, prompt, c.one)
			if len(invs) != 1 || invs[0].Error != "" || invs[0].Tool != harness.ToolShell ||
				strings.Join(invs[0].Command, " ") != "bash -lc "+c.oneCommand {
				t.Fatalf("one command: %+v", invs)
			}
			if calls := ans.ToolCalls(); calls[0].CallID != "text-t-1" || calls[0].Name != harness.TextCommandTool {
				t.Fatalf("call: %+v", calls)
			}

			// Two commands (or an unreadable reply): nothing runs, the model
			// is told why.
			_, invs = finish(t, c.harness, prompt, c.two)
			if len(invs) != 1 || invs[0].Error == "" {
				t.Fatalf("two commands: %+v", invs)
			}

			// No command: one reminder...
			ans, invs = finish(t, c.harness, prompt, c.zero)
			if len(invs) != 1 || invs[0].Error == "" {
				t.Fatalf("no command: %+v", invs)
			}
			// ...and after the reminder, a second reply without a command
			// ends the turn (no call).
			reminded := append(append([]harness.Entry{}, prompt...), ans.Entries...)
			reminded = append(reminded, harness.Entry{Kind: harness.KindToolOutput, CallID: "text-t-1",
				Name: harness.TextReminderTool, Text: "error: " + invs[0].Error, Error: true})
			if _, invs = finish(t, c.harness, reminded, c.zero); len(invs) != 0 {
				t.Fatalf("second reply without a command: %+v", invs)
			}
			// A command after the reminder runs normally.
			if _, invs = finish(t, c.harness, reminded, c.one); len(invs) != 1 || invs[0].Error != "" {
				t.Fatalf("command after the reminder: %+v", invs)
			}

			// The declared end: no call, the turn ends.
			if _, invs = finish(t, c.harness, prompt, c.done); len(invs) != 0 {
				t.Fatalf("done: %+v", invs)
			}

			// The reminder reaches the model as a plain user message.
			h, _ := harness.Lookup(c.harness)
			body := harness.RenderChat(harness.Request{Model: "m", Harness: h, Conversation: reminded})
			last := body.Messages[len(body.Messages)-1].OfUser
			if last == nil || strings.HasPrefix(last.Content.OfString.Value, "error:") || last.Content.OfString.Value == "" {
				t.Fatalf("reminder message: %+v", body.Messages[len(body.Messages)-1])
			}
			if len(body.Tools) != 0 {
				t.Fatal("a text loop offers no tools")
			}
		})
	}
}

func TestFencedBlocks(t *testing.T) {
	text := "a\n```bash\nls -la\n```\ninline ```not a fence``` here\n````\nwith ``` inside\n````\n```\nunclosed"
	got := harness.FencedBlocks(text)
	if len(got) != 2 || got[0] != (harness.Block{Lang: "bash", Body: "ls -la"}) || got[1].Body != "with ``` inside" {
		t.Fatalf("%+v", got)
	}
}

func TestParseShellOutput(t *testing.T) {
	// The format the workflow writes (workflows/tools.go runShell).
	r, ok := harness.ParseShellOutput("Exit code: 2\nWall time: 1.5 seconds\nOutput:\nboom\n")
	if !ok || r.ExitCode != 2 || r.Wall != "1.5" || r.Output != "boom\n" {
		t.Fatalf("%+v %v", r, ok)
	}
	if _, ok := harness.ParseShellOutput("declined: approval needed"); ok {
		t.Fatal("not a shell output")
	}
}
