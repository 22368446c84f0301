package activities

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/harness"
)

func fakeServer(t *testing.T, script *fakemodel.Script) (*fakemodel.Server, string) {
	t.Helper()
	s := fakemodel.New(script)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func modelInput(wire, h, base string) ModelInput {
	return ModelInput{ThreadID: "th", TurnID: "th/turn-1", Step: 1, Model: "claude-sonnet-4-5",
		Provider: ProviderSpec{ID: "fake", BaseURL: base, WireAPI: wire}, Harness: h,
		Env:    harness.Env{Cwd: "/work"},
		Append: []harness.Entry{{Kind: harness.KindUser, Text: "hello"}}}
}

// A two-step Anthropic Messages exchange: thinking, text and a tool call
// come back as entries; the thinking block goes back with its signature,
// the tool result as a tool_result block, and the cache marks are set.
func TestCallModelMessages(t *testing.T) {
	srv, base := fakeServer(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Reasoning: "look first", Text: "Listing.", ToolCalls: []fakemodel.ToolCall{{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)}},
			Usage: &fakemodel.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 7}},
		{Text: "done"},
	}}}})
	a := newActs(t)
	in := modelInput(WireMessages, "claude-code", base)
	out, err := a.CallModel(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, "Listing.", out.Message)
	require.Equal(t, "look first", out.Reasoning)
	require.Equal(t, harness.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 7}, out.Usage)
	require.Len(t, out.Calls, 1)
	require.Equal(t, "Bash", out.Calls[0].Call.Name)
	require.Equal(t, harness.Invocation{Tool: harness.ToolShell, Command: []string{"bash", "-lc", "ls"}, TimeoutMs: 120000}, out.Calls[0].Inv)

	in2 := in
	in2.Step, in2.Transcript = 2, out.Transcript
	in2.Append = []harness.Entry{{Kind: harness.KindToolOutput, CallID: out.Calls[0].Call.CallID, Text: "a\nb\n"}}
	out2, err := a.CallModel(context.Background(), in2)
	require.NoError(t, err)
	require.Equal(t, "done", out2.Message)
	require.Empty(t, out2.Calls)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	var body struct {
		System   []map[string]any `json:"system"`
		Thinking map[string]any   `json:"thinking"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(reqs[1].Body, &body))
	require.Equal(t, map[string]any{"type": "ephemeral"}, body.System[0]["cache_control"])
	require.Equal(t, "enabled", body.Thinking["type"])
	require.Len(t, body.Messages, 3)
	asst := body.Messages[1].Content
	require.Equal(t, "thinking", asst[0]["type"])
	require.Equal(t, "look first", asst[0]["thinking"])
	require.NotEmpty(t, asst[0]["signature"])
	require.Equal(t, "tool_use", asst[2]["type"])
	last := body.Messages[2].Content[0]
	require.Equal(t, "tool_result", last["type"])
	require.Equal(t, map[string]any{"type": "ephemeral"}, last["cache_control"])
}

// Provider errors on the Messages wire are classified like OpenAI ones: 429
// and 5xx retryable, other 4xx final; a stream cut off before message_stop
// is retryable.
func TestCallModelMessagesErrors(t *testing.T) {
	for _, tc := range []struct {
		step      fakemodel.Step
		retryable bool
		part      string
	}{
		{fakemodel.Step{Text: "x", FailStatus: 429}, true, "429"},
		{fakemodel.Step{Text: "x", FailStatus: 529}, true, "529"},
		{fakemodel.Step{Text: "x", FailStatus: 400}, false, "400"},
		{fakemodel.Step{Text: "x", FailStatus: 401}, false, "401"},
		{fakemodel.Step{Text: "a long answer that gets cut", DropStream: true}, true, ""},
	} {
		_, base := fakeServer(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{tc.step}}}})
		a := newActs(t)
		_, err := a.CallModel(context.Background(), modelInput(WireMessages, "claude-code", base))
		require.Error(t, err)
		require.Contains(t, err.Error(), tc.part)
		var app *temporal.ApplicationError
		if errors.As(err, &app) {
			require.Equal(t, !tc.retryable, app.NonRetryable(), "%v", err)
		} else {
			require.True(t, tc.retryable, "a plain error is retried: %v", err)
		}
	}
}

// A harness that does not fit the wire API is refused before any request.
func TestCallModelRefusesMismatchedRoute(t *testing.T) {
	srv, base := fakeServer(t, nil)
	a := newActs(t)
	_, err := a.CallModel(context.Background(), modelInput(WireMessages, "codex", base))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.True(t, app.NonRetryable())
	require.Contains(t, err.Error(), "harnesses for messages: claude-code")
	_, err = a.CallModel(context.Background(), modelInput(WireChat, "nope", base))
	require.ErrorAs(t, err, &app)
	require.Contains(t, err.Error(), `unknown harness "nope"`)
	require.Empty(t, srv.Requests())
}

// Chat Completions: reasoning_content streamed by thinking models is kept.
func TestCallModelChatKeepsReasoningContent(t *testing.T) {
	stream := strings.Join([]string{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"think "}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"more"}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`,
	}, "\n\ndata: ")
	srv := httptest.NewServer(sseHandler("data: " + stream + "\n\ndata: [DONE]\n\n"))
	defer srv.Close()
	a := newActs(t)
	out, err := a.CallModel(context.Background(), modelInput(WireChat, "codex", srv.URL))
	require.NoError(t, err)
	require.Equal(t, "think more", out.Reasoning)
	require.Equal(t, "hi", out.Message)
}

func TestOversizedResultIsPermanent(t *testing.T) {
	err := checkPayload(&ModelOutput{Message: strings.Repeat("x", MaxPayload)})
	var app *temporal.ApplicationError
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("got %v", err)
	}
	if !errors.As(err, &app) || !app.NonRetryable() {
		t.Fatalf("oversized result must be non-retryable: %v", err)
	}
	if err := checkPayload(&ModelOutput{Message: "small"}); err != nil {
		t.Fatal(err)
	}
}

// What goes over the wire is the rendered params plus "stream": true, so
// the golden files of package harness are the request bodies.
func TestRequestBodiesAreTheRenderedParams(t *testing.T) {
	for _, tc := range []struct{ wire, harness string }{
		{WireResponses, "codex"}, {WireChat, "kimi-cli"}, {WireMessages, "claude-code"}, {WireChat, "mini-swe-agent"},
	} {
		srv, base := fakeServer(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "hi"}}}}})
		if tc.wire != WireMessages {
			base += "/v1"
		}
		a := newActs(t)
		in := modelInput(tc.wire, tc.harness, base)
		_, err := a.CallModel(context.Background(), in)
		require.NoError(t, err, tc.harness)
		h, _ := harness.Lookup(tc.harness)
		req := harness.Request{Model: in.Model, Harness: h, Env: in.Env, Conversation: in.Append, CacheKey: in.ThreadID}
		var params any
		switch tc.wire {
		case WireResponses:
			params = harness.RenderResponses(req)
		case WireChat:
			params = harness.RenderChat(req)
		case WireMessages:
			params = harness.RenderMessages(req)
		}
		b, err := json.Marshal(params)
		require.NoError(t, err)
		var want, got map[string]any
		require.NoError(t, json.Unmarshal(b, &want))
		want["stream"] = true
		require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &got))
		require.Equal(t, want, got, "%s over %s", tc.harness, tc.wire)
	}
}

// A call that outruns its budget is handed off and taken over by the
// next attempt with its key: one request to the provider, the whole
// answer. A key this worker does not hold means a fresh call; a call that
// answers within the budget is just answered.
func TestCallModelHandsOffASlowCall(t *testing.T) {
	a := newActs(t)
	srv, base := fakeServer(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "slow answer", DelayMs: 300}}}}})
	in := modelInput(WireResponses, "codex", base)
	in.Budget = 20 * time.Millisecond
	out, err := a.CallModel(context.Background(), in)
	require.NoError(t, err)
	require.NotEmpty(t, out.Handoff)
	require.Empty(t, out.Message)
	require.Empty(t, out.Transcript)

	in.Budget, in.Resume = 0, out.Handoff
	out, err = a.CallModel(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, "slow answer", out.Message)
	require.NotEmpty(t, out.Transcript)
	require.Len(t, srv.Requests(), 1, "the handed-off call goes on; it is not made again")

	other := newActs(t) // another worker: it does not hold the call
	srv2, base2 := fakeServer(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "fresh answer"}}}}})
	in2 := modelInput(WireResponses, "codex", base2)
	in2.Resume = "no-such-call"
	out, err = other.CallModel(context.Background(), in2)
	require.NoError(t, err)
	require.Equal(t, "fresh answer", out.Message)
	require.Len(t, srv2.Requests(), 1)

	in2.Resume, in2.Budget = "", 5*time.Second
	out, err = other.CallModel(context.Background(), in2)
	require.NoError(t, err)
	require.Empty(t, out.Handoff)
	require.NotEmpty(t, out.Message)
}
