package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/codex"
)

func TestTruncateKeepsHeadAndTail(t *testing.T) {
	s := "HEAD" + strings.Repeat("x", 10000) + "TAIL"
	got := harness.Truncate(s, 200)
	if len(got) > 200+40 || !strings.HasPrefix(got, "HEAD") || !strings.HasSuffix(got, "TAIL") || !strings.Contains(got, "omitted") {
		t.Fatalf("%d bytes: %q", len(got), got)
	}
	if harness.Truncate("short", 200) != "short" {
		t.Fatal("short text changed")
	}
}

func TestCodexDecode(t *testing.T) {
	h := codex.Harness{}
	cases := []struct {
		call    harness.ToolCall
		tool    string
		wantErr string
	}{
		{harness.ToolCall{Name: "shell", Arguments: `{"command":["ls","-la"],"workdir":"src"}`}, harness.ToolShell, ""},
		{harness.ToolCall{Name: "shell", Arguments: `{"command":"ls"}`}, harness.ToolShell, "invalid arguments"},
		{harness.ToolCall{Name: "shell", Arguments: `{"command":[]}`}, harness.ToolShell, "non-empty"},
		{harness.ToolCall{Name: "shell", Arguments: `{"command":["ls"],"cwd":"x"}`}, harness.ToolShell, "unknown field"},
		{harness.ToolCall{Name: "shell", Arguments: `{not json`}, harness.ToolShell, "invalid arguments"},
		{harness.ToolCall{Name: "apply_patch", Arguments: `{"input":"*** Begin Patch\n*** End Patch"}`}, harness.ToolPatch, ""},
		{harness.ToolCall{Name: "apply_patch", Arguments: `{"input":""}`}, harness.ToolPatch, "empty"},
		{harness.ToolCall{Name: "update_plan", Arguments: `{"plan":[{"step":"a","status":"pending"}]}`}, harness.ToolPlan, ""},
		{harness.ToolCall{Name: "rm_rf", Arguments: `{}`}, "rm_rf", "unknown tool"},
	}
	for _, c := range cases {
		inv := h.Decode(c.call)
		if inv.Tool != c.tool || (c.wantErr == "") != (inv.Error == "") || !strings.Contains(inv.Error, c.wantErr) {
			t.Errorf("Decode(%s %s) = %+v, want tool %s error containing %q", c.call.Name, c.call.Arguments, inv, c.tool, c.wantErr)
		}
	}
}

// The rendered Responses request carries the instructions, the tools and
// the conversation with tool calls paired to their outputs.
func TestRenderResponses(t *testing.T) {
	req := harness.Request{Model: "gpt-5.1", Harness: codex.Harness{}, Env: harness.Env{Cwd: "/work"}, CacheKey: "th",
		Conversation: []harness.Entry{
			{Kind: harness.KindUser, Text: "list files"},
			{Kind: harness.KindToolCall, CallID: "c1", Name: "shell", Arguments: `{"command":["ls"]}`},
			{Kind: harness.KindToolOutput, CallID: "c1", Text: "a.go"},
		}}
	b, err := json.Marshal(harness.RenderResponses(req))
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	for _, want := range []string{`"model":"gpt-5.1"`, `\u003ccwd\u003e/work\u003c/cwd\u003e`, `"name":"apply_patch"`, `"type":"function_call_output"`, `"call_id":"c1"`, `"prompt_cache_key":"th"`, `"store":false`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
}

func TestParseResponses(t *testing.T) {
	raw := `{"status":"completed","output":[
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello"}]},
		{"type":"function_call","call_id":"c9","name":"shell","arguments":"{\"command\":[\"ls\"]}"}],
		"usage":{"input_tokens":10,"output_tokens":5,"input_tokens_details":{"cached_tokens":4},"output_tokens_details":{"reasoning_tokens":2}}}`
	a, err := harness.ParseResponses([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if a.Message() != "Hello" || len(a.ToolCalls()) != 1 || a.ToolCalls()[0].CallID != "c9" {
		t.Fatalf("%+v", a)
	}
	if a.Usage != (harness.Usage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 5, ReasoningTokens: 2}) {
		t.Fatalf("usage %+v", a.Usage)
	}
	if _, err := harness.ParseResponses([]byte("{")); err == nil {
		t.Fatal("malformed response accepted")
	}
}
