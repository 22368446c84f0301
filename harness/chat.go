package harness

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// ChatShaper is implemented by harnesses that adjust the chat request
// beyond the defaults (a max_tokens of their own, a tool message shape).
type ChatShaper interface {
	ShapeChat(r Request, p *openai.ChatCompletionNewParams)
}

// RenderChat builds an OpenAI Chat Completions request. An assistant's text
// and the tool calls that follow it are one assistant message, as the API
// expects. Text-loop harnesses get no tools: their tool outputs are user
// messages.
func RenderChat(r Request) openai.ChatCompletionNewParams {
	info := r.Harness.Info()
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(r.Harness.Instructions(r.Env))}
	var pending *openai.ChatCompletionAssistantMessageParam
	reasoning, pendingReasoning := "", false
	open := func() *openai.ChatCompletionAssistantMessageParam {
		m := &openai.ChatCompletionAssistantMessageParam{}
		pendingReasoning = false
		if info.ReasoningContent && reasoning != "" {
			m.SetExtraFields(map[string]any{"reasoning_content": reasoning})
			pendingReasoning = true
		}
		reasoning = ""
		return m
	}
	flush := func() {
		if pending == nil {
			return
		}
		if len(pending.ToolCalls) > 0 {
			if !pendingReasoning && info.ReasoningPlaceholder != "" {
				pending.SetExtraFields(map[string]any{"reasoning_content": info.ReasoningPlaceholder})
			}
			if info.EmptyToolCallContent && pending.Content.OfString.Value == "" && len(pending.Content.OfArrayOfContentParts) == 0 {
				pending.Content.OfString = openai.String("")
			}
		}
		msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: pending})
		pending = nil
	}
	// Tool messages take no pictures: those a tool showed follow the run
	// of tool messages as one user message.
	var shown []Image
	showPictures := func() {
		if len(shown) > 0 {
			msgs = append(msgs, chatUserWithImages("The tool output above showed these images.", shown))
			shown = nil
		}
	}
	for _, e := range r.Conversation {
		if e.Kind != KindToolOutput {
			showPictures()
		}
		switch e.Kind {
		case KindUser:
			flush()
			reasoning = ""
			if len(e.Images) > 0 {
				msgs = append(msgs, chatUserWithImages(e.Text, e.Images))
				continue
			}
			msgs = append(msgs, openai.UserMessage(e.Text))
		case KindReasoning:
			reasoning += e.Text
		case KindAssistant:
			flush()
			pending = open()
			pending.Content.OfString = openai.String(e.Text)
		case KindToolCall:
			if info.TextLoop {
				continue
			}
			if pending == nil {
				pending = open()
			}
			pending.ToolCalls = append(pending.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       e.CallID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: e.Name, Arguments: e.Arguments},
				},
			})
		case KindToolOutput:
			flush()
			if info.TextLoop {
				msgs = append(msgs, openai.UserMessage(OutputText(r.Harness, e)))
				continue
			}
			text := OutputText(r.Harness, e)
			if text == "" && len(e.Images) > 0 {
				text = "(the image follows)"
			}
			msgs = append(msgs, openai.ToolMessage(text, e.CallID))
			shown = append(shown, e.Images...)
		}
	}
	showPictures()
	flush()
	p := openai.ChatCompletionNewParams{
		Model:         r.Model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if r.Harness.Info().ParallelToolCalls && len(offered(r)) > 0 {
		p.ParallelToolCalls = openai.Bool(true)
	}
	for _, t := range offered(r) {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Parameters),
		}))
	}
	if s, ok := r.Harness.(ChatShaper); ok {
		s.ShapeChat(r, &p)
	}
	// Chat providers that reason take OpenAI's reasoning_effort; it is
	// sent only when set, since servers differ in what they accept.
	if e := r.Reasoning.Effort; e != "" && r.Reasoning.Reasons(r.Model) {
		p.ReasoningEffort = shared.ReasoningEffort(e)
	}
	return p
}

// ParseChat reads a complete (or accumulated) chat completion. reasoning is
// the reasoning_content the stream carried (the accumulator drops it).
func ParseChat(c openai.ChatCompletion, reasoning string) Answer {
	var a Answer
	if reasoning != "" {
		a.Entries = append(a.Entries, Entry{Kind: KindReasoning, Text: reasoning})
	}
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
