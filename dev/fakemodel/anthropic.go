package fakemodel

import (
	"encoding/json"
	"fmt"
)

// anthropicFormat is Anthropic Messages (POST /v1/messages).
type anthropicFormat struct{}

func (anthropicFormat) parse(body []byte) (request, error) {
	var in struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return request{}, fmt.Errorf("messages request: %w", err)
	}
	q := request{model: in.Model, stream: in.Stream}
	for _, m := range in.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		// A string content is plain user text; so is an array without
		// tool_result blocks. Tool results count one per block.
		if json.Unmarshal(m.Content, &blocks) == nil {
			results := 0
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results++
				}
			}
			if results > 0 {
				q.conv.toolResults += results
				continue
			}
		}
		q.conv.addUser(contentText(m.Content))
	}
	return q, nil
}

func (anthropicFormat) errorBody(status int, msg string) any {
	return map[string]any{"type": "error", "error": map[string]any{"type": errorType(status), "message": msg}}
}

func anthropicStop(r reply) string {
	if len(r.calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                max(u.InputTokens-u.CachedInputTokens, 0),
		"cache_read_input_tokens":     u.CachedInputTokens,
		"cache_creation_input_tokens": 0,
		"output_tokens":               output,
	}
}

func signature(r reply) string { return "fakemodel-signature-" + r.id("th") }

// anthropicBlocks lists the final content blocks: thinking, text, tool uses.
func anthropicBlocks(r reply) []map[string]any {
	var out []map[string]any
	if r.reasoning != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": r.reasoning, "signature": signature(r)})
	}
	if r.text != "" || len(r.calls) == 0 {
		out = append(out, map[string]any{"type": "text", "text": r.text})
	}
	for _, c := range r.calls {
		out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
	}
	return out
}

func anthropicMessage(q request, r reply, content []map[string]any, stop any, usage map[string]any) map[string]any {
	return map[string]any{
		"id": r.id("msg"), "type": "message", "role": "assistant", "model": q.modelOr("fake-model"),
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
}

func (anthropicFormat) message(q request, r reply) any {
	return anthropicMessage(q, r, anthropicBlocks(r), anthropicStop(r), anthropicUsage(r.usage, r.usage.OutputTokens))
}

func (anthropicFormat) events(q request, r reply) []sseEvent {
	var evs []sseEvent
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		evs = append(evs, newEvent(typ, fields))
	}
	emit("message_start", map[string]any{"message": anthropicMessage(q, r, []map[string]any{}, nil, anthropicUsage(r.usage, 1))})
	emit("ping", map[string]any{})
	for i, b := range anthropicBlocks(r) {
		delta := func(d map[string]any) { emit("content_block_delta", map[string]any{"index": i, "delta": d}) }
		switch b["type"] {
		case "thinking":
			emit("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, d := range splitText(r.reasoning, 3) {
				delta(map[string]any{"type": "thinking_delta", "thinking": d})
			}
			delta(map[string]any{"type": "signature_delta", "signature": b["signature"]})
		case "text":
			emit("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, d := range splitText(r.text, 4) {
				delta(map[string]any{"type": "text_delta", "text": d})
			}
		case "tool_use":
			emit("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, d := range splitText(string(b["input"].(json.RawMessage)), 3) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": d})
			}
		}
		emit("content_block_stop", map[string]any{"index": i})
	}
	emit("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": anthropicStop(r), "stop_sequence": nil},
		"usage": anthropicUsage(r.usage, r.usage.OutputTokens),
	})
	emit("message_stop", map[string]any{})
	return evs
}
