package fakemodel

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("POST %s: body %q is not a JSON object: %v", url, data, err)
	}
	return resp.StatusCode, v
}

func TestRoutes(t *testing.T) {
	_, ts := serve(t, &Script{Turns: []Turn{{Steps: []Step{{Text: "hi"}}}}})
	tests := []struct {
		path   string
		body   string
		status int
		field  string // a top-level field the answer has
	}{
		{"/responses", `{"input":"hi"}`, 200, "output"},
		{"/v1/responses", `{"input":"hi"}`, 200, "output"},
		{"/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 200, "choices"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 200, "choices"},
		{"/messages", `{"messages":[{"role":"user","content":"hi"}]}`, 200, "content"},
		{"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`, 200, "content"},
		{"/v1/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`, 200, "content"},
		{"/v1/embeddings", `{}`, 404, "error"},
		// Bad JSON: 400 in each provider's error shape.
		{"/v1/responses", `{"input":`, 400, "error"},
		{"/v1/chat/completions", `not json`, 400, "error"},
		{"/v1/messages", `{"messages":"nope"}`, 400, "error"},
	}
	for _, tt := range tests {
		status, v := post(t, ts.URL+tt.path, tt.body)
		if status != tt.status || v[tt.field] == nil {
			t.Errorf("POST %s %s: status %d body %v; want %d with %q", tt.path, tt.body, status, v, tt.status, tt.field)
		}
		if status >= 400 {
			e, _ := v["error"].(map[string]any)
			if e["message"] == nil || e["type"] == nil {
				t.Errorf("POST %s: error body %v", tt.path, v)
			}
			if strings.HasSuffix(tt.path, "/messages") && v["type"] != "error" {
				t.Errorf("POST %s: Anthropic error without type:error: %v", tt.path, v)
			}
		}
	}
	resp, err := http.Get(ts.URL + "/v1/responses")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/responses: %d", resp.StatusCode)
	}
}

func TestRecordingWithoutAPIKey(t *testing.T) {
	s, ts := serve(t, &Script{Turns: []Turn{{Steps: []Step{{Shell: "ls"}, {Text: "done here"}}}}})
	client := openaiClient(ts)
	if _, err := client.Responses.New(t.Context(), responsesInput([]string{"remember pineapple"}, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := anthropicClient(ts).Messages.New(t.Context(), anthropicParams([]string{"remember pineapple"}, 1)); err != nil {
		t.Fatal(err)
	}
	if !s.LastRequestContains("pineapple") || s.LastRequestContains("banana") {
		t.Error("LastRequestContains")
	}
	if got := len(s.RequestsContaining("remember pineapple")); got != 2 {
		t.Errorf("RequestsContaining: %d", got)
	}

	recs := s.Requests()
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if r := recs[0]; r.Seq != 1 || r.Path != "/v1/responses" || r.Turn != 0 || r.Step != 0 || r.Status != 200 {
		t.Errorf("first record %+v", r)
	}
	if r := recs[1]; r.Seq != 2 || r.Path != "/v1/messages" || r.Step != 1 {
		t.Errorf("second record %+v", r)
	}
	all, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(all), testAPIKey) {
		t.Error("records contain the API key")
	}

	// Another process sees the same through the control endpoints, with or
	// without /v1 in the base URL.
	remote, err := FetchRequests(t.Context(), ts.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	if len(remote) != 2 || remote[1].Path != "/v1/messages" || !strings.Contains(string(remote[0].Body), "pineapple") {
		t.Errorf("remote records %+v", remote)
	}
	if err := ResetRemote(t.Context(), ts.URL); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(); len(got) != 0 {
		t.Errorf("after reset: %d records", len(got))
	}
}

func TestInvalidScriptAnswers500(t *testing.T) {
	_, ts := serve(t, &Script{Turns: []Turn{{}}})
	status, v := post(t, ts.URL+"/v1/chat/completions", `{"messages":[]}`)
	if status != 500 || !strings.Contains(v["error"].(map[string]any)["message"].(string), "no steps") {
		t.Errorf("status %d body %v", status, v)
	}
}

func TestStartAndDemo(t *testing.T) {
	run, err := Start("127.0.0.1:0", nil) // nil: the demo script
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if !strings.HasPrefix(run.URL(), "http://127.0.0.1:") || !strings.HasSuffix(run.URL(), "/v1") {
		t.Errorf("URL %q", run.URL())
	}
	client := openai.NewClient(option.WithBaseURL(run.URL()), option.WithAPIKey(testAPIKey), option.WithMaxRetries(0))

	// Every thread, and every turn of a thread, gets the same demo.
	for _, users := range [][]string{{"hi"}, {"hi", "again"}} {
		var cmds []string
		for n := 0; ; n++ {
			resp, err := client.Chat.Completions.New(t.Context(), chatParams(users, n))
			if err != nil {
				t.Fatal(err)
			}
			m := resp.Choices[0].Message
			if len(m.ToolCalls) == 0 {
				if !strings.Contains(m.Content, "scripted demo model") {
					t.Errorf("final demo text %q", m.Content)
				}
				break
			}
			cmds = append(cmds, shellCommand(t, m.ToolCalls[0].Function.Arguments)[2])
		}
		if strings.Join(cmds, ";") != "ls -la;pwd" {
			t.Errorf("%v: demo commands %v", users, cmds)
		}
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	urls := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(ctx, "127.0.0.1:0", nil, func(r *Running) { urls <- r.BaseURL() })
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-errc:
		t.Fatalf("Serve: %v", err)
	}
	resp, err := http.Get(url + "/_fake/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health: %d", resp.StatusCode)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Serve returned %v", err)
	}
}
