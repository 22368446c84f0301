package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

const testAPIKey = "sk-fakemodel-secret-key-1234"

// serve starts an httptest server for script, closed with the test.
func serve(t *testing.T, script *Script) (*Server, *httptest.Server) {
	t.Helper()
	s := New(script)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

func openaiClient(ts *httptest.Server) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(ts.URL+"/v1"), option.WithAPIKey(testAPIKey), option.WithMaxRetries(0))
	return &c
}

func anthropicClient(ts *httptest.Server) *anthropic.Client {
	c := anthropic.NewClient(aoption.WithBaseURL(ts.URL), aoption.WithAPIKey(testAPIKey), aoption.WithMaxRetries(0))
	return &c
}

// Conversation builders: user texts, and tool outputs after the last one.

func responsesInput(users []string, toolOutputs int) responses.ResponseNewParams {
	var parts []any
	for _, u := range users {
		parts = append(parts, u)
	}
	return responsesConvo(append(parts, toolOutputs)...)
}

// responsesConvo builds a Responses input from parts: a string is a user
// message, an int n is n function calls each with its output.
func responsesConvo(parts ...any) responses.ResponseNewParams {
	var items responses.ResponseInputParam
	calls := 0
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			items = append(items, responses.ResponseInputItemParamOfMessage(p, responses.EasyInputMessageRoleUser))
		case int:
			for range p {
				calls++
				id := fmt.Sprintf("call_prev_%d", calls)
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(`{}`, id, "shell"))
				out := responses.ResponseInputItemParamOfFunctionCallOutput("ok")
				out.OfFunctionCallOutput.CallID = openai.String(id)
				items = append(items, out)
			}
		}
	}
	return responses.ResponseNewParams{
		Model: "fake-model",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items},
	}
}

func chatParams(users []string, toolOutputs int) openai.ChatCompletionNewParams {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief")}
	for _, u := range users {
		msgs = append(msgs, openai.UserMessage(u))
	}
	for i := range toolOutputs {
		msgs = append(msgs, openai.AssistantMessage("calling a tool"))
		msgs = append(msgs, openai.ToolMessage("ok", "call_prev_"+string(rune('a'+i))))
	}
	return openai.ChatCompletionNewParams{Model: "fake-model", Messages: msgs}
}

func anthropicParams(users []string, toolOutputs int) anthropic.MessageNewParams {
	var msgs []anthropic.MessageParam
	for i, u := range users {
		if i > 0 {
			msgs = append(msgs, anthropic.NewAssistantMessage(anthropic.NewTextBlock("ok")))
		}
		msgs = append(msgs, anthropic.NewUserMessage(anthropic.NewTextBlock(u)))
	}
	for i := range toolOutputs {
		id := "call_prev_" + string(rune('a'+i))
		msgs = append(msgs, anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(id, map[string]any{}, "shell")))
		msgs = append(msgs, anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, "ok", false)))
	}
	return anthropic.MessageNewParams{Model: "claude-fake", MaxTokens: 1024, Messages: msgs}
}

// shellCommand decodes shell tool arguments.
func shellCommand(t *testing.T, args string) []string {
	t.Helper()
	var v struct {
		Command []string `json:"command"`
	}
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		t.Fatalf("shell arguments %q: %v", args, err)
	}
	return v.Command
}
