package fakemodel

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// answer is what a Responses non-streaming request got: text and the tool
// calls as name/call_id.
func responsesAnswer(t *testing.T, client *openai.Client, params responses.ResponseNewParams) (string, []string) {
	t.Helper()
	resp, err := client.Responses.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, it := range resp.Output {
		if it.Type == "function_call" {
			calls = append(calls, it.Name+"/"+it.CallID)
		}
	}
	return resp.OutputText(), calls
}

func TestStepSelectionTwoTurns(t *testing.T) {
	s, ts := serve(t, &Script{Turns: []Turn{
		{Steps: []Step{{Shell: "make build"}, {Shell: "make test"}, {Text: "built and tested"}}},
		{Steps: []Step{{Shell: "git status"}, {Text: "clean"}}},
	}})
	client := openaiClient(ts)

	// The second turn's conversation carries the whole first turn: its two
	// tool outputs come before the second user message and do not count.
	tests := []struct {
		convo      []any
		text       string
		calls      []string
		turn, step int
	}{
		{[]any{"build it"}, "", []string{"shell/call_t0_s0_0"}, 0, 0},
		{[]any{"build it", 1}, "", []string{"shell/call_t0_s1_0"}, 0, 1},
		{[]any{"build it", 2}, "built and tested", nil, 0, 2},
		{[]any{"build it", 5}, "built and tested", nil, 0, 5}, // past the end: final text, no calls
		{[]any{"build it", 2, "now check git"}, "", []string{"shell/call_t1_s0_0"}, 1, 0},
		{[]any{"build it", 2, "now check git", 1}, "clean", nil, 1, 1},
		{[]any{"a", "b", "c"}, "", []string{"shell/call_t1_s0_0"}, 1, 0}, // clamped to the last turn
		{[]any{1}, "", []string{"shell/call_t0_s1_0"}, 0, 1},             // no user message: first turn
		// A sub-agent's notice between tool outputs is no user message.
		{[]any{"build it", 1, "<subagent_notification>\n{}\n</subagent_notification>", 1}, "built and tested", nil, 0, 2},
	}
	for _, tt := range tests {
		text, calls := responsesAnswer(t, client, responsesConvo(tt.convo...))
		if text != tt.text || !slices.Equal(calls, tt.calls) {
			t.Errorf("%v: got %q %v, want %q %v", tt.convo, text, calls, tt.text, tt.calls)
		}
		if rec, _ := s.LastRequest(); rec.Turn != tt.turn || rec.Step != tt.step {
			t.Errorf("%v: recorded turn %d step %d, want %d %d", tt.convo, rec.Turn, rec.Step, tt.turn, tt.step)
		}
	}
}

func TestMatch(t *testing.T) {
	_, ts := serve(t, &Script{Turns: []Turn{
		{Match: "deploy", Steps: []Step{{Text: "deploying"}}},
		{Match: "test", Steps: []Step{{Shell: "go test ./..."}, {Text: "tests pass"}}},
		{Steps: []Step{{Text: "default one"}}},
		{Steps: []Step{{Text: "default two"}}},
	}})
	client := openaiClient(ts)
	tests := []struct {
		users       []string
		toolOutputs int
		want        string
	}{
		{[]string{"please deploy"}, 0, "deploying"},
		{[]string{"please deploy", "run the test suite"}, 0, ""}, // last user message decides
		{[]string{"run the test suite"}, 1, "tests pass"},
		{[]string{"hello"}, 0, "default one"},          // no match: turns without Match, by position
		{[]string{"hello", "again"}, 0, "default two"}, // second user message
		{[]string{"a", "b", "c", "d"}, 0, "default two"},
	}
	for _, tt := range tests {
		resp, err := client.Chat.Completions.New(t.Context(), chatParams(tt.users, tt.toolOutputs))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Choices[0].Message.Content; got != tt.want {
			t.Errorf("%v/%d: got %q, want %q", tt.users, tt.toolOutputs, got, tt.want)
		}
	}

	// Only Match turns and no match: a clear text answer, no tool calls.
	_, ts = serve(t, &Script{Turns: []Turn{{Match: "x", Steps: []Step{{Shell: "true"}}}}})
	resp, err := openaiClient(ts).Chat.Completions.New(t.Context(), chatParams([]string{"hello"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if m := resp.Choices[0].Message; len(m.ToolCalls) != 0 || m.Content != "fakemodel: no scripted turn matches the last user message" {
		t.Errorf("no-match answer %s", m.RawJSON())
	}
}

func TestRepeat(t *testing.T) {
	_, ts := serve(t, &Script{Turns: []Turn{{Steps: []Step{
		{Shell: "sleep 1", Repeat: 3},
		{Shell: "echo end"},
		{Text: "finished"},
	}}}})
	client := anthropicClient(ts)
	for n, want := range []string{"call_t0_s0_0", "call_t0_s1_0", "call_t0_s2_0", "call_t0_s3_0", "finished", "finished"} {
		msg, err := client.Messages.New(t.Context(), anthropicParams([]string{"go"}, n))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, b := range msg.Content {
			switch b.Type {
			case "tool_use":
				got = b.ID
				cmd := shellCommand(t, string(b.Input))[2]
				if wantCmd := map[bool]string{true: "sleep 1", false: "echo end"}[n < 3]; cmd != wantCmd {
					t.Errorf("step %d command %q, want %q", n, cmd, wantCmd)
				}
			case "text":
				got = b.Text
			}
		}
		if got != want {
			t.Errorf("after %d tool results: got %q, want %q", n, got, want)
		}
	}
}

// sdkCall makes one request with a real SDK and reports the HTTP status of
// an API error (0 when the call succeeded) and other errors.
type sdkCall func(ctx context.Context) (status int, err error)

func sdkCalls(ts *httptest.Server) map[string]sdkCall {
	oa, an := openaiClient(ts), anthropicClient(ts)
	status := func(err error) (int, error) {
		var oe *openai.Error
		var ae *anthropic.Error
		switch {
		case err == nil:
			return 0, nil
		case errors.As(err, &oe):
			return oe.StatusCode, nil
		case errors.As(err, &ae):
			return ae.StatusCode, nil
		}
		return 0, err
	}
	return map[string]sdkCall{
		"responses": func(ctx context.Context) (int, error) {
			_, err := oa.Responses.New(ctx, responsesInput([]string{"hi"}, 0))
			return status(err)
		},
		"chat": func(ctx context.Context) (int, error) {
			_, err := oa.Chat.Completions.New(ctx, chatParams([]string{"hi"}, 0))
			return status(err)
		},
		"anthropic": func(ctx context.Context) (int, error) {
			_, err := an.Messages.New(ctx, anthropicParams([]string{"hi"}, 0))
			return status(err)
		},
	}
}

func TestFailStatus(t *testing.T) {
	script := &Script{Turns: []Turn{{Steps: []Step{{Text: "finally", FailStatus: 429, FailTimes: 2}}}}}
	for _, name := range []string{"responses", "chat", "anthropic"} {
		t.Run(name, func(t *testing.T) {
			s, ts := serve(t, script)
			call := sdkCalls(ts)[name]
			for i, want := range []int{429, 429, 0, 0} {
				got, err := call(t.Context())
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got != want {
					t.Errorf("call %d: status %d, want %d", i, got, want)
				}
			}
			var statuses []int
			for _, rec := range s.Requests() {
				statuses = append(statuses, rec.Status)
			}
			if !slices.Equal(statuses, []int{429, 429, 200, 200}) {
				t.Errorf("recorded statuses %v", statuses)
			}
			// Reset clears the counters: the step fails again.
			s.Reset()
			if got, _ := call(t.Context()); got != 429 {
				t.Errorf("after reset: status %d", got)
			}
		})
	}
}

func TestDropStream(t *testing.T) {
	script := &Script{Turns: []Turn{{Steps: []Step{{Text: "a fairly long answer that streams in pieces", Shell: "ls", DropStream: true}}}}}
	// Each stream function reports whether the terminal event arrived.
	streams := map[string]func(t *testing.T, ts *httptest.Server) (bool, error){
		"responses": func(t *testing.T, ts *httptest.Server) (bool, error) {
			st := openaiClient(ts).Responses.NewStreaming(t.Context(), responsesInput([]string{"hi"}, 0))
			completed := false
			for st.Next() {
				completed = completed || st.Current().Type == "response.completed"
			}
			return completed, st.Err()
		},
		"chat": func(t *testing.T, ts *httptest.Server) (bool, error) {
			st := openaiClient(ts).Chat.Completions.NewStreaming(t.Context(), chatParams([]string{"hi"}, 0))
			finished := false
			for st.Next() {
				for _, c := range st.Current().Choices {
					finished = finished || c.FinishReason != ""
				}
			}
			return finished, st.Err()
		},
		"anthropic": func(t *testing.T, ts *httptest.Server) (bool, error) {
			st := anthropicClient(ts).Messages.NewStreaming(t.Context(), anthropicParams([]string{"hi"}, 0))
			stopped := false
			for st.Next() {
				stopped = stopped || st.Current().Type == "message_stop"
			}
			return stopped, st.Err()
		},
	}
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			s, ts := serve(t, script)
			done, err := stream(t, ts)
			if err == nil || done {
				t.Fatalf("first stream: err %v, terminal event %v; want an error and no terminal event", err, done)
			}
			done, err = stream(t, ts)
			if err != nil || !done {
				t.Fatalf("second stream: err %v, terminal event %v", err, done)
			}
			recs := s.Requests()
			if len(recs) != 2 || !recs[0].Dropped || recs[1].Dropped {
				t.Errorf("recorded %+v", recs)
			}
		})
	}

	// Non-streaming requests are cut off too; the SDK sees an error.
	_, ts := serve(t, script)
	if _, err := openaiClient(ts).Responses.New(t.Context(), responsesInput([]string{"hi"}, 0)); err == nil {
		t.Error("first non-streaming request succeeded")
	}
	if _, err := openaiClient(ts).Responses.New(t.Context(), responsesInput([]string{"hi"}, 0)); err != nil {
		t.Errorf("second non-streaming request: %v", err)
	}
}

func TestDelayHonoursCancellation(t *testing.T) {
	_, ts := serve(t, &Script{Turns: []Turn{{Steps: []Step{{Text: "slow", DelayMs: 60_000}}}}})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := openaiClient(ts).Responses.New(ctx, responsesInput([]string{"hi"}, 0))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want deadline exceeded", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Error("request was not cut short")
	}
	// httptest's Close waits for the handler, so a handler stuck in the
	// delay would hang the test here.
	ts.Close()
}

func TestConcurrentRequestsShareCounters(t *testing.T) {
	s, ts := serve(t, &Script{Turns: []Turn{{Steps: []Step{{Text: "ok", FailStatus: 500, FailTimes: 3}}}}})
	const n = 20
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	failed := 0
	for st := range statuses {
		if st == 500 {
			failed++
		}
	}
	if failed != 3 {
		t.Errorf("%d failures, want 3", failed)
	}
	seen := map[int]bool{}
	for _, rec := range s.Requests() {
		seen[rec.Seq] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct records, want %d", len(seen), n)
	}
}
