package fakemodel

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// wireScript answers the first request with reasoning, text and two tool
// calls, the second with a final text.
func wireScript() *Script {
	return &Script{Turns: []Turn{{Steps: []Step{
		{
			Reasoning: "I should list the files & check <things>.",
			Text:      "Listing files now.",
			Shell:     "ls -la | head",
			ToolCalls: []ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{ "path": "a.txt" }`)}},
			Usage:     &Usage{InputTokens: 120, OutputTokens: 7, CachedInputTokens: 100},
		},
		{Text: "All done: the directory has 3 files."},
	}}}}
}

var wantShell = []string{"bash", "-lc", "ls -la | head"}

func TestResponsesStreaming(t *testing.T) {
	s, ts := serve(t, wireScript())
	client := openaiClient(ts)
	params := responsesInput([]string{"list the files"}, 0)
	params.Include = []responses.ResponseIncludable{"reasoning.encrypted_content"}
	stream := client.Responses.NewStreaming(t.Context(), params)

	var (
		types     []string
		lastSeq   int64 = -1
		text      strings.Builder
		reasoning strings.Builder
		args      = map[string]*strings.Builder{}
		done      []responses.ResponseOutputItemUnion
		final     *responses.Response
	)
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.SequenceNumber != lastSeq+1 {
			t.Errorf("%s: sequence_number %d after %d", ev.Type, ev.SequenceNumber, lastSeq)
		}
		lastSeq = ev.SequenceNumber
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.reasoning_summary_text.delta":
			reasoning.WriteString(ev.Delta)
		case "response.function_call_arguments.delta":
			if args[ev.ItemID] == nil {
				args[ev.ItemID] = &strings.Builder{}
			}
			args[ev.ItemID].WriteString(ev.Delta)
		case "response.output_item.done":
			done = append(done, ev.Item)
		case "response.completed":
			r := ev.Response
			final = &r
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	for _, want := range []string{"response.created", "response.in_progress", "response.output_item.added",
		"response.content_part.added", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event in %v", want, types)
		}
	}
	if types[len(types)-1] != "response.completed" {
		t.Errorf("last event %s", types[len(types)-1])
	}
	if got := text.String(); got != "Listing files now." {
		t.Errorf("text deltas %q", got)
	}
	if got := reasoning.String(); got != "I should list the files & check <things>." {
		t.Errorf("reasoning deltas %q", got)
	}
	if got := args["fc_t0_s0_0"]; got == nil || !slices.Equal(shellCommand(t, got.String()), wantShell) {
		t.Errorf("shell argument deltas %v", got)
	}
	if len(done) != 4 {
		t.Fatalf("%d output_item.done events, want 4", len(done))
	}
	if final == nil {
		t.Fatal("no response.completed")
	}
	if final.OutputText() != "Listing files now." || final.Status != "completed" {
		t.Errorf("final text %q status %q", final.OutputText(), final.Status)
	}
	var calls []responses.ResponseOutputItemUnion
	for _, it := range final.Output {
		switch it.Type {
		case "function_call":
			calls = append(calls, it)
		case "reasoning":
			if len(it.Summary) != 1 || it.Summary[0].Text != reasoning.String() || it.EncryptedContent == "" {
				t.Errorf("reasoning item %s", it.RawJSON())
			}
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d function calls, want 2", len(calls))
	}
	if c := calls[0]; c.CallID != "call_t0_s0_0" || c.Name != "shell" || c.Status != "completed" ||
		!slices.Equal(shellCommand(t, c.Arguments.OfString), wantShell) {
		t.Errorf("first call %s", c.RawJSON())
	}
	if c := calls[1]; c.CallID != "call_t0_s0_1" || c.Name != "read_file" || c.Arguments.OfString != `{"path":"a.txt"}` {
		t.Errorf("second call %s", c.RawJSON())
	}
	u := final.Usage
	if u.InputTokens != 120 || u.OutputTokens != 7 || u.TotalTokens != 127 || u.InputTokensDetails.CachedTokens != 100 {
		t.Errorf("usage %s", u.RawJSON())
	}
	if rec, _ := s.LastRequest(); rec.Turn != 0 || rec.Step != 0 || rec.Status != 200 || rec.Path != "/v1/responses" {
		t.Errorf("recorded %+v", rec)
	}
}

func TestResponsesNonStreaming(t *testing.T) {
	_, ts := serve(t, wireScript())
	client := openaiClient(ts)
	resp, err := client.Responses.New(t.Context(), responsesInput([]string{"list the files"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputText() != "Listing files now." || resp.ID != "resp_t0_s0" {
		t.Errorf("text %q id %q", resp.OutputText(), resp.ID)
	}
	var names []string
	for _, it := range resp.Output {
		if it.Type == "function_call" {
			names = append(names, it.Name+"/"+it.CallID)
		}
	}
	if !slices.Equal(names, []string{"shell/call_t0_s0_0", "read_file/call_t0_s0_1"}) {
		t.Errorf("calls %v", names)
	}
	// With both tool outputs sent back, the turn moves to its next step.
	resp, err = client.Responses.New(t.Context(), responsesInput([]string{"list the files"}, 2))
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputText() != "All done: the directory has 3 files." {
		t.Errorf("second answer %q", resp.OutputText())
	}
}

func TestChatStreaming(t *testing.T) {
	_, ts := serve(t, wireScript())
	client := openaiClient(ts)
	params := chatParams([]string{"list the files"}, 0)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client.Chat.Completions.NewStreaming(t.Context(), params)
	var acc openai.ChatCompletionAccumulator
	var finished []string
	for stream.Next() {
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("accumulator rejected chunk %s", stream.Current().RawJSON())
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc.Name)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	ch := acc.Choices[0]
	if ch.FinishReason != "tool_calls" || ch.Message.Content != "Listing files now." {
		t.Errorf("finish %q content %q", ch.FinishReason, ch.Message.Content)
	}
	if len(ch.Message.ToolCalls) != 2 {
		t.Fatalf("tool calls %v", ch.Message.ToolCalls)
	}
	if tc := ch.Message.ToolCalls[0]; tc.ID != "call_t0_s0_0" || tc.Function.Name != "shell" ||
		!slices.Equal(shellCommand(t, tc.Function.Arguments), wantShell) {
		t.Errorf("first call %+v", tc)
	}
	if tc := ch.Message.ToolCalls[1]; tc.ID != "call_t0_s0_1" || tc.Function.Arguments != `{"path":"a.txt"}` {
		t.Errorf("second call %+v", tc)
	}
	if !slices.Equal(finished, []string{"shell", "read_file"}) {
		t.Errorf("JustFinishedToolCall saw %v", finished)
	}
	if u := acc.Usage; u.PromptTokens != 120 || u.CompletionTokens != 7 || u.TotalTokens != 127 {
		t.Errorf("usage %+v", u)
	}
}

func TestChatNonStreaming(t *testing.T) {
	_, ts := serve(t, wireScript())
	client := openaiClient(ts)
	resp, err := client.Chat.Completions.New(t.Context(), chatParams([]string{"list the files"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 2 {
		t.Fatalf("finish %q calls %d", ch.FinishReason, len(ch.Message.ToolCalls))
	}
	if tc := ch.Message.ToolCalls[0]; tc.ID != "call_t0_s0_0" || !slices.Equal(shellCommand(t, tc.Function.Arguments), wantShell) {
		t.Errorf("call %+v", tc)
	}
	if resp.Usage.PromptTokens != 120 || resp.Usage.PromptTokensDetails.CachedTokens != 100 {
		t.Errorf("usage %s", resp.Usage.RawJSON())
	}
	resp, err = client.Chat.Completions.New(t.Context(), chatParams([]string{"list the files"}, 2))
	if err != nil {
		t.Fatal(err)
	}
	if ch := resp.Choices[0]; ch.FinishReason != "stop" || ch.Message.Content != "All done: the directory has 3 files." {
		t.Errorf("final %q %q", ch.FinishReason, ch.Message.Content)
	}
}

func checkAnthropicMessage(t *testing.T, msg anthropic.Message) {
	t.Helper()
	if msg.StopReason != "tool_use" || len(msg.Content) != 4 {
		t.Fatalf("stop %q content %s", msg.StopReason, msg.RawJSON())
	}
	th, tx, sh, rf := msg.Content[0], msg.Content[1], msg.Content[2], msg.Content[3]
	if th.Type != "thinking" || th.Thinking != "I should list the files & check <things>." || th.Signature == "" {
		t.Errorf("thinking block %s", th.RawJSON())
	}
	if tx.Type != "text" || tx.Text != "Listing files now." {
		t.Errorf("text block %s", tx.RawJSON())
	}
	if sh.Type != "tool_use" || sh.ID != "call_t0_s0_0" || sh.Name != "shell" || !slices.Equal(shellCommand(t, string(sh.Input)), wantShell) {
		t.Errorf("shell block %s", sh.RawJSON())
	}
	if rf.Type != "tool_use" || rf.ID != "call_t0_s0_1" || string(rf.Input) != `{"path":"a.txt"}` {
		t.Errorf("read_file block %s input %s", rf.RawJSON(), rf.Input)
	}
	if u := msg.Usage; u.InputTokens != 20 || u.CacheReadInputTokens != 100 || u.OutputTokens != 7 {
		t.Errorf("usage %s", u.RawJSON())
	}
}

func TestAnthropicStreaming(t *testing.T) {
	_, ts := serve(t, wireScript())
	client := anthropicClient(ts)
	stream := client.Messages.NewStreaming(t.Context(), anthropicParams([]string{"list the files"}, 0))
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	checkAnthropicMessage(t, msg)
}

func TestAnthropicNonStreaming(t *testing.T) {
	_, ts := serve(t, wireScript())
	client := anthropicClient(ts)
	msg, err := client.Messages.New(t.Context(), anthropicParams([]string{"list the files"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	checkAnthropicMessage(t, *msg)
	msg, err = client.Messages.New(t.Context(), anthropicParams([]string{"list the files"}, 2))
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "All done: the directory has 3 files." {
		t.Errorf("final %s", msg.RawJSON())
	}
}
