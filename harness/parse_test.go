package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/interpreter-dev/interpreter/harness"
)

func answerFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "answers", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeAll(t *testing.T, harnessName string, a harness.Answer) map[string]harness.Invocation {
	t.Helper()
	h, err := harness.Lookup(harnessName)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]harness.Invocation{}
	for _, c := range a.ToolCalls() {
		out[c.CallID] = h.Decode(c)
	}
	return out
}

func wantInv(t *testing.T, got map[string]harness.Invocation, id string, want harness.Invocation) {
	t.Helper()
	if !reflect.DeepEqual(got[id], want) {
		t.Errorf("%s:\n got  %+v\n want %+v", id, got[id], want)
	}
}

func wantErr(t *testing.T, got map[string]harness.Invocation, id, part string) {
	t.Helper()
	if !strings.Contains(got[id].Error, part) {
		t.Errorf("%s: error %q does not mention %q", id, got[id].Error, part)
	}
}

// A recorded Responses answer: reasoning, text, a good call, a call whose
// arguments are cut off, and a tool codex does not have. The bad ones come
// back as errors for the model, never as a failure of the parse.
func TestParseResponsesAnswer(t *testing.T) {
	a, err := harness.ParseResponses(answerFile(t, "responses.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Message() != "Running the tests first." || a.Entries[0].Kind != harness.KindReasoning || a.Entries[0].ID != "rs_01" {
		t.Fatalf("entries: %+v", a.Entries)
	}
	if a.Usage != (harness.Usage{InputTokens: 5120, CachedInputTokens: 4096, OutputTokens: 210, ReasoningTokens: 128}) {
		t.Fatalf("usage: %+v", a.Usage)
	}
	got := decodeAll(t, "codex", a)
	wantInv(t, got, "call_ok", harness.Invocation{Tool: harness.ToolShell, Command: []string{"bash", "-lc", "go test ./..."}, TimeoutMs: 60000})
	wantErr(t, got, "call_bad", "invalid arguments")
	wantErr(t, got, "call_unknown", `unknown tool "web_search"; available tools: exec_command, write_stdin, apply_patch, update_plan`)
	if _, err := harness.ParseResponses([]byte(`{"output": [`)); err == nil {
		t.Fatal("a truncated body must be an error")
	}
}

// A recorded Kimi chat answer through the kimi-cli harness.
func TestParseChatAnswerKimi(t *testing.T) {
	var c openai.ChatCompletion
	if err := json.Unmarshal(answerFile(t, "chat.json"), &c); err != nil {
		t.Fatal(err)
	}
	a := harness.ParseChat(c, "thinking about calc.go")
	if a.Entries[0].Kind != harness.KindReasoning || a.Message() != "I'll look at the code." {
		t.Fatalf("entries: %+v", a.Entries)
	}
	if a.Usage != (harness.Usage{InputTokens: 3000, CachedInputTokens: 2048, OutputTokens: 120}) {
		t.Fatalf("usage: %+v", a.Usage)
	}
	got := decodeAll(t, "kimi-cli", a)
	wantInv(t, got, "ReadFile:0", harness.Invocation{Tool: harness.ToolRead, Path: "calc.go", Offset: 10, Limit: 20})
	wantInv(t, got, "StrReplaceFile:1", harness.Invocation{Tool: harness.ToolEdit, Path: "calc.go",
		Edits: []harness.Edit{{Old: "a + b + 1", New: "a + b"}, {Old: "x", New: "y", All: true}}})
	wantErr(t, got, "Shell:2", "invalid arguments")
	wantInv(t, got, "SetTodoList:3", harness.Invocation{Tool: harness.ToolPlan,
		Plan: []harness.PlanStep{{Step: "fix Add", Status: "completed"}, {Step: "run tests", Status: "in_progress"}}})
	wantErr(t, got, "Teleport:4", `unknown tool "Teleport"; available tools: Shell, ReadFile, Glob, Grep, WriteFile, StrReplaceFile, SetTodoList`)
	wantInv(t, got, "Grep:5", harness.Invocation{Tool: harness.ToolGrep, Pattern: "func Add", OutputMode: harness.GrepContent,
		Context: 2, Include: "*.go", Limit: 250})
}

// A recorded Anthropic answer through the claude-code harness: thinking
// (signed and redacted) is kept for the next request, a tool_use whose
// input has the wrong type and an unknown tool become tool errors.
func TestParseMessagesAnswerClaude(t *testing.T) {
	var m anthropic.Message
	if err := json.Unmarshal(answerFile(t, "messages.json"), &m); err != nil {
		t.Fatal(err)
	}
	a := harness.ParseMessage(m)
	if a.Entries[0].Signature == "" || a.Entries[1].Redacted == "" || a.Message() != "Let me fix it." {
		t.Fatalf("entries: %+v", a.Entries)
	}
	if a.Usage != (harness.Usage{InputTokens: 3112, CachedInputTokens: 3000, OutputTokens: 300}) {
		t.Fatalf("usage: %+v", a.Usage)
	}
	got := decodeAll(t, "claude-code", a)
	wantInv(t, got, "toolu_01", harness.Invocation{Tool: harness.ToolEdit, Path: "/work/project/calc.go",
		Edits: []harness.Edit{{Old: "a + b + 1", New: "a + b"}}})
	wantErr(t, got, "toolu_02", "invalid arguments")
	wantInv(t, got, "toolu_03", harness.Invocation{Tool: harness.ToolPlan,
		Plan: []harness.PlanStep{{Step: "Fix Add", Status: "completed"}, {Step: "Run tests", Status: "in_progress"}}})
	wantErr(t, got, "toolu_04", `unknown tool "NotebookEdit"`)
	wantInv(t, got, "toolu_05", harness.Invocation{Tool: harness.ToolGrep, Pattern: `Add\(`, Include: "*.go", IgnoreCase: true, OutputMode: harness.GrepFiles})

	// The thinking blocks go back verbatim in the next request.
	h, _ := harness.Lookup("claude-code")
	conv := append([]harness.Entry{{Kind: harness.KindUser, Text: "fix"}}, a.Entries...)
	body, _ := json.Marshal(harness.RenderMessages(harness.Request{Model: "claude-sonnet-4-5", Harness: h, Conversation: conv}))
	for _, want := range []string{`"type":"thinking"`, `"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"`, `"type":"redacted_thinking"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("next request lacks %s", want)
		}
	}
}

// Every harness turns garbage arguments and unknown tools into errors for
// the model, and never panics.
func TestEveryHarnessRejectsBadCalls(t *testing.T) {
	bad := []string{``, `{`, `[]`, `"x"`, `null`, `{"nope": 1}`, `{"command": {"x": 1}}`, `{"path": 7}`, "{\"todos\": \"x\"}", `{} {}`}
	for _, name := range harness.Names() {
		h, _ := harness.Lookup(name)
		for _, spec := range h.Tools() {
			for _, args := range bad {
				inv := h.Decode(harness.ToolCall{CallID: "c", Name: spec.Name, Arguments: args})
				if inv.Error == "" && args != `` && args != `null` {
					// Empty or null arguments are {} and may be valid
					// (list with no path); anything else must be refused
					// unless the tool takes no required argument.
					if _, ok := spec.Parameters["required"]; ok {
						t.Errorf("%s %s(%s): accepted: %+v", name, spec.Name, args, inv)
					}
				}
			}
			if spec.Core == "" {
				t.Errorf("%s %s maps onto no core tool", name, spec.Name)
			}
		}
		inv := h.Decode(harness.ToolCall{CallID: "c", Name: "no_such_tool", Arguments: "{}"})
		if inv.Error == "" {
			t.Errorf("%s: unknown tool accepted", name)
		}
	}
}
