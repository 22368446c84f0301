package devtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

func toolCall(name string, args any) fakemodel.ToolCall {
	b, _ := json.Marshal(args)
	return fakemodel.ToolCall{Name: name, Arguments: b}
}

// One turn per wire API, end to end on the embedded server: the model
// writes a file with its harness's write tool, runs a shell command with
// its shell tool, calls a tool its harness does not have (a tool error for
// the model, not a failed turn), and answers. Over Messages the first
// answer is also cut off mid-stream once and retried.
func TestHarnessTurnPerWireAPI(t *testing.T) {
	cases := []struct {
		wire, harness, match string
		write, shell         func(path string) fakemodel.ToolCall
		dropFirst            bool
		path                 string
	}{
		{
			wire: activities.WireResponses, harness: "codex",
			write: func(p string) fakemodel.ToolCall {
				return toolCall("apply_patch", map[string]string{"input": "*** Begin Patch\n*** Add File: " + p + "\n+hello from codex\n*** End Patch"})
			},
			shell: func(p string) fakemodel.ToolCall {
				return toolCall("shell", map[string]any{"command": []string{"bash", "-lc", "cat " + p}})
			},
			path: "/v1/responses",
		},
		{
			wire: activities.WireChat, harness: "kimi-cli",
			write: func(p string) fakemodel.ToolCall {
				return toolCall("WriteFile", map[string]string{"path": p, "content": "hello from kimi-cli\n"})
			},
			shell: func(p string) fakemodel.ToolCall { return toolCall("Shell", map[string]any{"command": "cat " + p}) },
			path:  "/v1/chat/completions",
		},
		{
			// Qwen Code opens with a start-up context exchange (an extra
			// user message), so the script picks its turn by match.
			wire: activities.WireChat, harness: "qwen-code", match: "PROMPT-QWEN",
			write: func(p string) fakemodel.ToolCall {
				return toolCall("write_file", map[string]string{"file_path": p, "content": "hello from qwen-code\n"})
			},
			shell: func(p string) fakemodel.ToolCall {
				return toolCall("run_shell_command", map[string]any{"command": "cat " + p})
			},
			path: "/v1/chat/completions",
		},
		{
			wire: activities.WireMessages, harness: "claude-code", dropFirst: true,
			write: func(p string) fakemodel.ToolCall {
				return toolCall("Write", map[string]string{"file_path": p, "content": "hello from claude-code\n"})
			},
			shell: func(p string) fakemodel.ToolCall { return toolCall("Bash", map[string]any{"command": "cat " + p}) },
			path:  "/v1/messages",
		},
	}
	for _, tc := range cases {
		t.Run(tc.harness+"/"+tc.wire, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "hello.txt")
			if tc.harness == "codex" {
				file = "hello.txt" // patches take paths relative to the working directory
			}
			steps := []fakemodel.Step{
				{Reasoning: "write, then read back", Text: "Writing the file.", ToolCalls: []fakemodel.ToolCall{tc.write(file)}, DropStream: tc.dropFirst},
				{ToolCalls: []fakemodel.ToolCall{tc.shell(file), {Name: "Teleport", Arguments: json.RawMessage(`{"to":"mars"}`)}}},
				{Text: "done: the file says hello"},
			}
			w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: tc.match, Steps: steps}}})
			w.StartWorker(WorkerOptions{Name: "w"})
			cfg := w.Config("")
			cfg.Cwd = dir
			cfg.Harness = tc.harness
			cfg.Provider.WireAPI = tc.wire
			if tc.wire == activities.WireMessages {
				cfg.Provider.BaseURL = w.Model.BaseURL()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			prompt := "write hello.txt and show it"
			if tc.match != "" {
				prompt += " " + tc.match
			}
			_, res := w.RunTurn(ctx, cfg, prompt)
			if res.Status != "completed" || res.FinalMessage != "done: the file says hello" {
				t.Fatalf("turn %s: %s (%q)", res.Status, res.Error, res.FinalMessage)
			}
			b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
			if err != nil || !strings.HasPrefix(string(b), "hello from "+tc.harness) {
				t.Fatalf("file: %q %v", b, err)
			}
			reqs := w.Model.Server.Requests()
			want := 3
			if tc.dropFirst {
				want = 4
			}
			if len(reqs) != want {
				t.Fatalf("%d model requests, want %d", len(reqs), want)
			}
			for _, r := range reqs {
				if r.Path != tc.path {
					t.Fatalf("request to %s, want %s", r.Path, tc.path)
				}
			}
			last := string(reqs[len(reqs)-1].Body)
			for _, want := range []string{"hello from " + tc.harness, `unknown tool \"Teleport\"`} {
				if !strings.Contains(last, want) {
					t.Errorf("the last request does not show %s:\n%s", want, last)
				}
			}
			if tc.harness == "qwen-code" && !strings.Contains(string(reqs[0].Body), "This is Qwen Code") {
				t.Errorf("no start-up context in the first request")
			}
			if tc.wire == activities.WireMessages && !strings.Contains(last, `"type":"thinking"`) {
				t.Errorf("the thinking block was not sent back")
			}
		})
	}
}

// A text-loop harness over Chat Completions: the command in the reply's
// fenced block runs, its output comes back as a user message, and the
// model's "done" ends the turn. The fake model picks steps by counting tool
// results, and observations are user messages here, so each step is its
// own matched turn.
func TestTextLoopTurn(t *testing.T) {
	dir := t.TempDir()
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "<returncode>0</returncode>", Steps: []fakemodel.Step{{Text: "THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"}}},
		{Match: "PROMPT-MINI", Steps: []fakemodel.Step{{Text: "THOUGHT: look.\n\n```bash\necho text-loop-ran > out.txt && cat out.txt\n```"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.Cwd = dir
	cfg.Harness = "mini-swe-agent"
	cfg.Provider.WireAPI = activities.WireChat
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "PROMPT-MINI run it")
	if res.Status != "completed" || !strings.Contains(res.FinalMessage, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") {
		t.Fatalf("turn %s: %s %q", res.Status, res.Error, res.FinalMessage)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "text-loop-ran\n" {
		t.Fatalf("out.txt: %q", b)
	}
	reqs := w.Model.Server.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := string(reqs[1].Body)
	if !strings.Contains(last, `<returncode>0</returncode>\n<output>\ntext-loop-ran\n</output>`) {
		t.Fatalf("observation missing: %s", last)
	}
	if strings.Contains(last, `"tools"`) {
		t.Fatalf("a text loop sent tools: %s", last)
	}
}
