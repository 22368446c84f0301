package harness

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// RenderChat builds an OpenAI Chat Completions request. Consecutive tool
// calls are folded into one assistant message, as the API expects.
func RenderChat(r Request) openai.ChatCompletionNewParams {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(r.Harness.Instructions(r.Env))}
	var pending *openai.ChatCompletionAssistantMessageParam
	flush := func() {
		if pending != nil {
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: pending})
			pending = nil
		}
	}
	for _, e := range r.Conversation {
		switch e.Kind {
		case KindUser:
			flush()
			msgs = append(msgs, openai.UserMessage(e.Text))
		case KindAssistant:
			flush()
			pending = &openai.ChatCompletionAssistantMessageParam{}
			pending.Content.OfString = openai.String(e.Text)
		case KindToolCall:
			if pending == nil {
				pending = &openai.ChatCompletionAssistantMessageParam{}
			}
			pending.ToolCalls = append(pending.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       e.CallID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: e.Name, Arguments: e.Arguments},
				},
			})
		case KindToolOutput:
			flush()
			msgs = append(msgs, openai.ToolMessage(e.Text, e.CallID))
		}
	}
	flush()
	p := openai.ChatCompletionNewParams{
		Model:         r.Model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, t := range r.Harness.Tools() {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Parameters),
		}))
	}
	return p
}

// ParseChat reads a complete (or accumulated) chat completion.
func ParseChat(c openai.ChatCompletion) Answer {
	var a Answer
	if len(c.Choices) > 0 {
		m := c.Choices[0].Message
		if m.Content != "" || m.Refusal != "" {
			a.Entries = append(a.Entries, Entry{Kind: KindAssistant, Text: m.Content + m.Refusal})
		}
		for _, tc := range m.ToolCalls {
			a.Entries = append(a.Entries, Entry{Kind: KindToolCall, CallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	a.Usage = Usage{
		InputTokens:       c.Usage.PromptTokens,
		CachedInputTokens: c.Usage.PromptTokensDetails.CachedTokens,
		OutputTokens:      c.Usage.CompletionTokens,
		ReasoningTokens:   c.Usage.CompletionTokensDetails.ReasoningTokens,
	}
	return a
}
