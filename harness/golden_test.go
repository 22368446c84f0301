package harness_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/golden")

// models are the models the golden requests go to, per harness.
var models = map[string]string{
	"codex":        "gpt-5.1",
	"codex-shell":  "gpt-5.1",
	"claude-code":  "claude-sonnet-4-5",
	"kimi-cli":     "kimi-k2-0905-preview",
	"qwen-code":    "qwen3-coder-plus",
	"deepseek-tui": "deepseek-chat",
}

func modelFor(name string) string {
	if m, ok := models[name]; ok {
		return m
	}
	return "test-model"
}

var goldenEnv = harness.Env{
	Cwd: "/work/project", Shell: "bash", SandboxMode: "workspace-write", ApprovalPolicy: "on-request", Date: "2026-01-15",
}

// firstReply is how each harness's model asks to run `go test ./...` in
// the first step: a tool call, or for the text loops a reply text.
var firstReply = map[string]struct{ text, tool, args string }{
	"codex":          {"Let me run the tests.", "exec_command", `{"cmd":"go test ./...","workdir":"/work/project"}`},
	"codex-shell":    {"Let me run the tests.", "shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/work/project"}`},
	"claude-code":    {"Let me run the tests.", "Bash", `{"command":"go test ./...","description":"Run the tests"}`},
	"kimi-cli":       {"Let me run the tests.", "Shell", `{"command":"go test ./...","timeout":120}`},
	"qwen-code":      {"Let me run the tests.", "run_shell_command", `{"command":"go test ./...","description":"Run the tests"}`},
	"deepseek-tui":   {"Let me run the tests.", "exec_shell", `{"command":"go test ./...","timeout_ms":120000}`},
	"opencode":       {"Let me run the tests.", "bash", `{"command":"go test ./...","description":"Run the tests"}`},
	"minimal":        {"Let me run the tests.", "shell", `{"command":"go test ./..."}`},
	"swe-agent":      {"DISCUSSION\nFirst I will run the tests to see what fails.\n\n```\ngo test ./...\n```", "", ""},
	"mini-swe-agent": {"THOUGHT: First I will run the tests to see what fails.\n\n```bash\ngo test ./...\n```", "", ""},
	"terminus-2":     {`{"analysis":"Nothing run yet.","plan":"Run the tests.","commands":[{"keystrokes":"go test ./...\n","duration":5}],"task_complete":false}`, "", ""},
}

// conversation is the same two-step exchange for every harness: the
// prompt, the model's reasoning, text and command, and the command's
// output. The first step's request is a prefix of it.
func conversation(t *testing.T, h harness.Harness) (step1, step2 []harness.Entry) {
	t.Helper()
	name := h.Info().Name
	if p, ok := h.(harness.Preluder); ok && h.Info().StartupContext {
		step1 = p.Prelude(harness.StartupInfo{Date: "Thursday, January 15, 2026", OS: "linux", Cwd: "/work/project",
			Listing: "/work/project/\n├── calc.go\n├── calc_test.go\n└── go.mod"})
	}
	if docs := harness.RenderProjectDocs(h, goldenDocs(h)); docs != "" {
		step1 = append(step1, harness.Entry{Kind: harness.KindUser, Text: docs, Context: true})
	}
	step1 = append(step1, harness.Entry{Kind: harness.KindUser, Text: "The test TestAdd fails. Fix it.\n",
		Images: []harness.Image{{Ref: "ref-1", MIME: "image/png", Label: "/work/project/failure.png", Data: []byte("\x89PNG\r\n\x1a\n-tiny")}}})
	r := firstReply[name]
	ans := harness.Answer{Entries: []harness.Entry{
		{Kind: harness.KindReasoning, Text: "The user wants the failing test fixed; run it first.", Signature: "c2lnbmF0dXJlLTE="},
		{Kind: harness.KindAssistant, Text: r.text},
	}}
	if r.tool != "" {
		ans.Entries = append(ans.Entries, harness.Entry{Kind: harness.KindToolCall, CallID: "call_1", Name: r.tool, Arguments: r.args})
	}
	if f, ok := h.(harness.Finisher); ok {
		ans = f.Finish(step1, ans, "call_1")
	}
	calls := ans.ToolCalls()
	if len(calls) != 1 {
		t.Fatalf("%s: %d calls in the first answer", name, len(calls))
	}
	inv := h.Decode(calls[0])
	if inv.Error != "" || (inv.Tool != harness.ToolShell && inv.Tool != harness.ToolExecCommand) {
		t.Fatalf("%s: the first call decodes to %+v", name, inv)
	}
	step2 = append(append(slices.Clone(step1), ans.Entries...), harness.Entry{Kind: harness.KindToolOutput, CallID: "call_1", Name: calls[0].Name,
		Text: "Exit code: 1\nWall time: 0.4 seconds\nOutput:\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:8: Add(2, 2) = 5, want 4\nFAIL\n"})
	return step1, step2
}

func render(t *testing.T, wire string, r harness.Request) json.RawMessage {
	t.Helper()
	var v any
	switch wire {
	case harness.WireResponses:
		v = harness.RenderResponses(r)
	case harness.WireChat:
		v = harness.RenderChat(r)
	case harness.WireMessages:
		v = harness.RenderMessages(r)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// The exact request body each harness sends, over each wire API it fits,
// for the first and the second step of the same conversation. The SDKs
// send these bytes with "stream": true added (see activities'
// TestRequestBodiesAreTheRenderedParams). Regenerate with -update.
func TestGoldenRequests(t *testing.T) {
	for _, name := range harness.Names() {
		h, _ := harness.Lookup(name)
		for _, wire := range h.Info().Wires {
			t.Run(name+"/"+wire, func(t *testing.T) {
				step1, step2 := conversation(t, h)
				req := harness.Request{Model: modelFor(name), Harness: h, Env: goldenEnv, CacheKey: "thread-1"}
				req.Env.Model = req.Model
				req.Conversation = step1
				b1 := render(t, wire, req)
				req.Conversation = step2
				b2 := render(t, wire, req)
				var out bytes.Buffer
				out.WriteString(`{"step1":`)
				out.Write(b1)
				out.WriteString(`,"step2":`)
				out.Write(b2)
				out.WriteString("}")
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
					t.Fatal(err)
				}
				pretty.WriteByte('\n')
				path := filepath.Join("testdata", "golden", name+"."+wire+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(want, pretty.Bytes()) {
					t.Errorf("request body differs from %s (run with -update after checking the change):\n%s", path, firstDiff(want, pretty.Bytes()))
				}
			})
		}
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return "line " + itoa(i+1) + ":\n  want: " + string(x) + "\n  got:  " + string(y)
		}
	}
	return ""
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// goldenDocs are the instructions files of a turn in /work/project/calc
// of a repository at /work/project, with the user's own file, under the
// names the harness's CLI reads.
func goldenDocs(h harness.Harness) harness.ProjectDocs {
	f := harness.ProjectDocFiles(h)
	name := f.Names[len(f.Names)-1]
	return harness.ProjectDocs{Cwd: "/work/project/calc", Docs: []harness.ProjectDoc{
		{Path: "/home/user/.interpreter/" + name, Text: "Answer tersely.\n", Global: true},
		{Path: "/work/project/" + name, Text: "Run `go test ./...` before you finish.\n"},
		{Path: "/work/project/calc/" + name, Text: "calc keeps integer arithmetic only.\n"},
	}}
}
