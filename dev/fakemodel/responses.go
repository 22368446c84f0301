package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// responsesFormat is the OpenAI Responses API (POST /responses).
type responsesFormat struct{}

func (responsesFormat) parse(body []byte) (request, error) {
	var in struct {
		Model   string          `json:"model"`
		Stream  bool            `json:"stream"`
		Input   json.RawMessage `json:"input"`
		Include []string        `json:"include"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return request{}, fmt.Errorf("responses request: %w", err)
	}
	q := request{model: in.Model, stream: in.Stream,
		encryptedReasoning: slices.Contains(in.Include, "reasoning.encrypted_content")}
	raw := bytes.TrimSpace(in.Input)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		q.conv.addUser(contentText(raw))
	default:
		var items []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Output  json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(raw, &items); err != nil {
			return request{}, fmt.Errorf("responses request input: %w", err)
		}
		for _, it := range items {
			switch {
			case (it.Type == "" || it.Type == "message") && it.Role == "user":
				q.conv.addUser(contentText(it.Content))
			case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
				q.conv.toolResults++
				q.conv.outputs = append(q.conv.outputs, contentText(it.Output))
			}
		}
	}
	return q, nil
}

func (responsesFormat) errorBody(status int, msg string) any { return openAIError(status, msg) }

// Output items, in their final (completed) form.

func responsesMessageItem(r reply) map[string]any {
	return map[string]any{
		"id": r.id("msg"), "type": "message", "status": "completed", "role": "assistant",
		"content": []any{outputTextPart(r.text)},
	}
}

func outputTextPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

func responsesReasoningItem(q request, r reply) map[string]any {
	item := map[string]any{
		"id": r.id("rs"), "type": "reasoning",
		"summary": []any{map[string]any{"type": "summary_text", "text": r.reasoning}},
	}
	if q.encryptedReasoning {
		item["encrypted_content"] = "fakemodel-encrypted-" + r.id("rs")
	}
	return item
}

func responsesCallItem(c call, status string) map[string]any {
	return map[string]any{
		"id": "fc" + c.ID[len("call"):], "type": "function_call", "status": status,
		"call_id": c.ID, "name": c.Name, "arguments": c.Args,
	}
}

// responsesOutput lists the final output items: reasoning, message, calls.
func responsesOutput(q request, r reply) []any {
	var out []any
	if r.reasoning != "" {
		out = append(out, responsesReasoningItem(q, r))
	}
	if r.text != "" || len(r.calls) == 0 {
		out = append(out, responsesMessageItem(r))
	}
	for _, c := range r.calls {
		out = append(out, responsesCallItem(c, "completed"))
	}
	return out
}

func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedInputTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          u.InputTokens + u.OutputTokens,
	}
}

// responseObject is the Response; output nil means in progress.
func responseObject(q request, r reply, output []any) map[string]any {
	status, usage := "in_progress", any(nil)
	if output != nil {
		status, usage = "completed", responsesUsage(r.usage)
	} else {
		output = []any{}
	}
	return map[string]any{
		"id": r.id("resp"), "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": q.modelOr("fake-model"), "output": output, "usage": usage,
		"error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{},
		"parallel_tool_calls": true, "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto",
		"tools": []any{}, "previous_response_id": nil, "max_output_tokens": nil,
		"reasoning": map[string]any{"effort": nil, "summary": nil}, "store": false,
		"text": map[string]any{"format": map[string]any{"type": "text"}}, "truncation": "disabled",
	}
}

func (responsesFormat) message(q request, r reply) any {
	return responseObject(q, r, responsesOutput(q, r))
}

func (responsesFormat) events(q request, r reply) []sseEvent {
	var evs []sseEvent
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = len(evs)
		evs = append(evs, newEvent(typ, fields))
	}
	emit("response.created", map[string]any{"response": responseObject(q, r, nil)})
	emit("response.in_progress", map[string]any{"response": responseObject(q, r, nil)})
	for idx, item := range responsesOutput(q, r) {
		item := item.(map[string]any)
		id := item["id"]
		at := func(fields map[string]any) map[string]any {
			fields["item_id"], fields["output_index"] = id, idx
			return fields
		}
		switch item["type"] {
		case "reasoning":
			added := map[string]any{"id": id, "type": "reasoning", "summary": []any{}}
			emit("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			emit("response.reasoning_summary_part.added", at(map[string]any{
				"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}}))
			for _, d := range splitText(r.reasoning, 3) {
				emit("response.reasoning_summary_text.delta", at(map[string]any{"summary_index": 0, "delta": d}))
			}
			emit("response.reasoning_summary_text.done", at(map[string]any{"summary_index": 0, "text": r.reasoning}))
			emit("response.reasoning_summary_part.done", at(map[string]any{
				"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": r.reasoning}}))
		case "message":
			added := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
			emit("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			emit("response.content_part.added", at(map[string]any{"content_index": 0, "part": outputTextPart("")}))
			for _, d := range splitText(r.text, 4) {
				emit("response.output_text.delta", at(map[string]any{"content_index": 0, "delta": d, "logprobs": []any{}}))
			}
			emit("response.output_text.done", at(map[string]any{"content_index": 0, "text": r.text, "logprobs": []any{}}))
			emit("response.content_part.done", at(map[string]any{"content_index": 0, "part": outputTextPart(r.text)}))
		case "function_call":
			c := call{ID: item["call_id"].(string), Name: item["name"].(string), Args: item["arguments"].(string)}
			emit("response.output_item.added", map[string]any{"output_index": idx, "item": responsesCallItem(call{ID: c.ID, Name: c.Name}, "in_progress")})
			for _, d := range splitText(c.Args, 3) {
				emit("response.function_call_arguments.delta", at(map[string]any{"delta": d}))
			}
			emit("response.function_call_arguments.done", at(map[string]any{"name": c.Name, "arguments": c.Args}))
		}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	}
	final := responsesOutput(q, r)
	if r.itemsOnly {
		final = []any{}
	}
	emit("response.completed", map[string]any{"response": responseObject(q, r, final)})
	return evs
}
