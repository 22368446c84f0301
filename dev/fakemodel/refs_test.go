package fakemodel

import "testing"

// A step refers to the tool results of its request: the agent id a spawn
// returned goes into the next call's arguments, escaped for JSON; a
// reference the request cannot satisfy stays visible.
func TestOutputReferences(t *testing.T) {
	q, err := responsesFormat{}.parse([]byte(`{"model":"m","input":[
		{"type":"message","role":"user","content":"go"},
		{"type":"function_call_output","call_id":"a","output":"{\"agent_id\":\"id-1\",\"n\":2}"},
		{"type":"function_call_output","call_id":"b","output":[{"type":"input_text","text":"say \"hi\""}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in     string
		inJSON bool
		want   string
	}{
		{`{"targets":["{{output.0.agent_id}}"]}`, true, `{"targets":["id-1"]}`},
		{`{"message":"{{output.1}}"}`, true, `{"message":"say \"hi\""}`},
		{`got {{output.0.n}} and {{output.1}}`, false, `got 2 and say "hi"`},
		{`{{output.2}} {{output.0.missing}} {{output.1.agent_id}}`, false, `{{output.2}} {{output.0.missing}} {{output.1.agent_id}}`},
		{`plain`, false, `plain`},
	} {
		if got := q.conv.expand(tt.in, tt.inJSON); got != tt.want {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A new user message starts a new list.
	q, _ = responsesFormat{}.parse([]byte(`{"input":[{"type":"function_call_output","output":"x"},{"role":"user","content":"again"}]}`))
	if len(q.conv.outputs) != 0 {
		t.Errorf("outputs after a new user message: %q", q.conv.outputs)
	}
}
