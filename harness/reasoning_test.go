package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/claudecode"
	"github.com/interpreter-dev/interpreter/harness/codex"
	"github.com/interpreter-dev/interpreter/harness/kimicli"
)

// The answer of a Responses stream is the same whether the server repeats
// the items in response.completed or sends them only as item events; items
// that never got their done event are rebuilt from their deltas.
func TestResponsesStreamAnswer(t *testing.T) {
	reasoning := `{"type":"reasoning","id":"rs1","summary":[{"type":"summary_text","text":"hm"}],"encrypted_content":"ENC"}`
	message := `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`
	call := `{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\"command\":[\"ls\"]}"}`
	done := func(i int, item string) string {
		return `{"type":"response.output_item.done","output_index":` + string(rune('0'+i)) + `,"item":` + item + `}`
	}
	completed := func(output string) string {
		return `{"type":"response.completed","response":{"status":"completed","output":` + output + `,"usage":{"input_tokens":7,"output_tokens":3}}}`
	}
	cases := []struct {
		name    string
		events  []string
		want    string // entries as kind:text|call-name|encrypted, joined by ","
		wantErr string
	}{
		{"completed carries the output", []string{completed("[" + reasoning + "," + message + "]")}, "reasoning:hm:ENC,assistant:hi", ""},
		{"items only", []string{done(0, reasoning), done(2, call), done(1, message), completed("[]")}, "reasoning:hm:ENC,assistant:hi,tool_call:shell", ""},
		{"null output", []string{done(0, message), completed("null")}, "assistant:hi", ""},
		{"no done events", []string{
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","role":"assistant","content":[]}}`,
			`{"type":"response.output_text.delta","output_index":0,"delta":"he"}`,
			`{"type":"response.output_text.delta","output_index":0,"delta":"llo"}`,
			`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c2","name":"shell","arguments":""}}`,
			`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"comm"}`,
			`{"type":"response.function_call_arguments.done","output_index":1,"arguments":"{\"command\":[\"pwd\"]}"}`,
			completed("[]"),
		}, "assistant:hello,tool_call:shell", ""},
		{"failed", []string{`{"type":"response.failed","response":{"error":{"message":"overloaded"}}}`}, "", "overloaded"},
		{"error event", []string{`{"type":"error","message":"rate limited"}`}, "", "rate limited"},
		{"cut off", []string{done(0, message)}, "", "stream ended"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s harness.ResponsesStream
			for _, ev := range c.events {
				if _, err := s.Add([]byte(ev)); err != nil {
					t.Fatal(err)
				}
			}
			a, err := s.Answer()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range a.Entries {
				switch e.Kind {
				case harness.KindToolCall:
					got = append(got, "tool_call:"+e.Name)
				case harness.KindReasoning:
					got = append(got, "reasoning:"+e.Text+":"+e.Encrypted)
				default:
					got = append(got, string(e.Kind)+":"+e.Text)
				}
			}
			if strings.Join(got, ",") != c.want {
				t.Fatalf("entries %v, want %s", got, c.want)
			}
		})
	}
}

// Reasoning settings on each wire: Responses asks a reasoning model for
// its effort, summary and encrypted reasoning, and gives the reasoning
// back without its id; Chat sends reasoning_effort; Messages maps the
// effort onto a thinking budget; a model that does not reason is asked
// for none of it.
func TestReasoningSettingsPerWire(t *testing.T) {
	conv := []harness.Entry{
		{Kind: harness.KindUser, Text: "go"},
		{Kind: harness.KindReasoning, ID: "rs_1", Text: "plan", Encrypted: "ENC1"},
		{Kind: harness.KindReasoning, ID: "rs_2", Text: "no content"},
		{Kind: harness.KindToolCall, CallID: "c1", Name: "shell", Arguments: `{"command":["ls"]}`},
		{Kind: harness.KindToolOutput, CallID: "c1", Text: "a.go"},
	}
	high := harness.Reasoning{Effort: "high", Summary: "concise", Verbosity: "low"}
	body := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name      string
		render    func() any
		want, not []string
	}{
		{"responses reasoning model", func() any {
			return harness.RenderResponses(harness.Request{Model: "gpt-5.1", Harness: codex.Harness{}, Conversation: conv, Reasoning: high})
		}, []string{`"include":["reasoning.encrypted_content"]`, `"reasoning":{"effort":"high","summary":"concise"}`,
			`"verbosity":"low"`, `{"encrypted_content":"ENC1","summary":[{"text":"plan","type":"summary_text"}],"type":"reasoning"}`},
			[]string{`rs_1`, `rs_2`, `no content`}},
		{"responses default summary", func() any {
			return harness.RenderResponses(harness.Request{Model: "o4-mini", Harness: codex.Harness{}, Conversation: conv})
		}, []string{`"reasoning":{"summary":"auto"}`, `"include":["reasoning.encrypted_content"]`}, []string{`"effort"`}},
		{"responses model that does not reason", func() any {
			return harness.RenderResponses(harness.Request{Model: "gpt-4.1", Harness: codex.Harness{}, Conversation: conv})
		}, nil, []string{`"include"`, `"reasoning":{`}},
		{"responses override says it reasons", func() any {
			yes := true
			return harness.RenderResponses(harness.Request{Model: "my-local-model", Harness: codex.Harness{}, Conversation: conv,
				Reasoning: harness.Reasoning{Effort: "low", Supported: &yes}})
		}, []string{`"reasoning":{"effort":"low","summary":"auto"}`}, nil},
		{"responses unknown model asked for an effort", func() any {
			return harness.RenderResponses(harness.Request{Model: "my-local-model", Harness: codex.Harness{}, Conversation: conv,
				Reasoning: harness.Reasoning{Effort: "medium"}})
		}, []string{`"reasoning":{"effort":"medium","summary":"auto"}`, `"include":["reasoning.encrypted_content"]`}, nil},
		{"chat", func() any {
			return harness.RenderChat(harness.Request{Model: "gpt-5.1", Harness: kimicli.Harness{}, Conversation: conv, Reasoning: high})
		}, []string{`"reasoning_effort":"high"`}, nil},
		{"chat without effort", func() any {
			return harness.RenderChat(harness.Request{Model: "gpt-5.1", Harness: kimicli.Harness{}, Conversation: conv})
		}, nil, []string{`reasoning_effort`}},
		{"messages effort", func() any {
			return harness.RenderMessages(harness.Request{Model: "claude-sonnet-4-5", Harness: claudecode.Harness{}, Conversation: conv, Reasoning: high})
		}, []string{`"thinking":{"budget_tokens":24000,"type":"enabled"}`, `"max_tokens":32192`}, nil},
		{"messages effort none", func() any {
			return harness.RenderMessages(harness.Request{Model: "claude-sonnet-4-5", Harness: claudecode.Harness{}, Conversation: conv,
				Reasoning: harness.Reasoning{Effort: "none"}})
		}, nil, []string{`"thinking"`}},
		{"messages harness default", func() any {
			return harness.RenderMessages(harness.Request{Model: "claude-sonnet-4-5", Harness: claudecode.Harness{}, Conversation: conv})
		}, []string{`"thinking":{"budget_tokens":8000,"type":"enabled"}`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := body(c.render())
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %s in\n%s", w, got)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %s in\n%s", n, got)
				}
			}
		})
	}
}

func TestReasoningChecks(t *testing.T) {
	cases := []struct {
		r       harness.Reasoning
		model   string
		wantErr string
	}{
		{harness.Reasoning{Effort: "xhigh"}, "gpt-5.1-codex-max", ""},
		{harness.Reasoning{Effort: "extreme"}, "gpt-5.1", "model_reasoning_effort"},
		{harness.Reasoning{Summary: "brief"}, "gpt-5.1", "model_reasoning_summary"},
		{harness.Reasoning{Verbosity: "loud"}, "gpt-5.1", "model_verbosity"},
		{harness.Reasoning{Effort: "high"}, "gpt-4o", "does not reason"},
		{harness.Reasoning{Effort: "high"}, "claude-3-5-sonnet-latest", "does not reason"},
		{harness.Reasoning{Effort: "high"}, "openrouter/openai/o3", ""},
		{harness.Reasoning{Effort: "none"}, "gpt-4o", ""},
		{harness.Reasoning{Effort: "low"}, "some-local-model", ""},
	}
	for _, c := range cases {
		err := c.r.Validate()
		if err == nil {
			err = c.r.CheckModel(c.model)
		}
		if (c.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%+v on %s: %v, want %q", c.r, c.model, err, c.wantErr)
		}
	}
}
