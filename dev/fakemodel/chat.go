package fakemodel

import (
	"encoding/json"
	"fmt"
	"time"
)

// chatFormat is OpenAI Chat Completions (POST /chat/completions). Reasoning
// is not rendered.
type chatFormat struct{}

func (chatFormat) parse(body []byte) (request, error) {
	var in struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return request{}, fmt.Errorf("chat completions request: %w", err)
	}
	q := request{model: in.Model, stream: in.Stream, includeUsage: in.StreamOptions.IncludeUsage}
	for _, m := range in.Messages {
		switch m.Role {
		case "user":
			q.conv.addUser(contentText(m.Content))
		case "tool", "function":
			q.conv.toolResults++
		}
	}
	return q, nil
}

func (chatFormat) errorBody(status int, msg string) any { return openAIError(status, msg) }

func chatFinish(r reply) string {
	if len(r.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.InputTokens,
		"completion_tokens":         u.OutputTokens,
		"total_tokens":              u.InputTokens + u.OutputTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedInputTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
}

func (chatFormat) message(q request, r reply) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if r.text != "" || len(r.calls) == 0 {
		msg["content"] = r.text
	}
	if len(r.calls) > 0 {
		var calls []any
		for _, c := range r.calls {
			calls = append(calls, map[string]any{
				"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args},
			})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": r.id("chatcmpl"), "object": "chat.completion", "created": time.Now().Unix(),
		"model": q.modelOr("fake-model"),
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": chatFinish(r),
		}},
		"usage": chatUsage(r.usage),
	}
}

func (chatFormat) events(q request, r reply) []sseEvent {
	var evs []sseEvent
	created := time.Now().Unix()
	chunk := func(choices []any, usage any) {
		evs = append(evs, newEvent("", map[string]any{
			"id": r.id("chatcmpl"), "object": "chat.completion.chunk", "created": created,
			"model": q.modelOr("fake-model"), "choices": choices, "usage": usage,
		}))
	}
	delta := func(d map[string]any, finish any) {
		chunk([]any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}, nil)
	}
	delta(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, d := range splitText(r.text, 4) {
		delta(map[string]any{"content": d}, nil)
	}
	for i, c := range r.calls {
		delta(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil)
		for _, d := range splitText(c.Args, 3) {
			delta(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": d},
			}}}, nil)
		}
	}
	delta(map[string]any{}, chatFinish(r))
	if q.includeUsage {
		chunk([]any{}, chatUsage(r.usage))
	}
	return append(evs, sseEvent{data: "[DONE]"})
}
