package harness

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// MessagesShaper is implemented by harnesses that tune an Anthropic
// Messages request for a model (output budget, extended thinking).
type MessagesShaper interface {
	ShapeMessages(r Request, p *anthropic.MessageNewParams)
}

// DefaultMaxTokens is the output budget of a Messages request unless the
// harness sets its own (the API requires one).
const DefaultMaxTokens = 8192

// RenderMessages builds an Anthropic Messages request. Consecutive entries
// of one role become one message; tool results travel in user messages;
// thinking blocks go back with their signatures (the API checks them on the
// assistant turn that made tool calls); the system prompt and the last
// message carry cache_control marks, so each step reads the previous step's
// prefix from the prompt cache.
func RenderMessages(r Request) anthropic.MessageNewParams {
	info := r.Harness.Info()
	type turn struct {
		user   bool
		blocks []anthropic.ContentBlockParamUnion
	}
	var turns []turn
	add := func(user bool, b anthropic.ContentBlockParamUnion) {
		if n := len(turns); n > 0 && turns[n-1].user == user {
			turns[n-1].blocks = append(turns[n-1].blocks, b)
			return
		}
		turns = append(turns, turn{user: user, blocks: []anthropic.ContentBlockParamUnion{b}})
	}
	const user, assistant = true, false
	for _, e := range r.Conversation {
		switch e.Kind {
		case KindUser:
			for _, im := range e.Images {
				add(user, messagesImageBlock(im))
			}
			if strings.TrimSpace(e.Text) != "" {
				add(user, anthropic.NewTextBlock(e.Text))
			}
		case KindReasoning:
			switch {
			case e.Redacted != "":
				add(assistant, anthropic.NewRedactedThinkingBlock(e.Redacted))
			case e.Signature != "":
				add(assistant, anthropic.NewThinkingBlock(e.Signature, e.Text))
			}
			// Reasoning from another provider has no signature and cannot
			// be sent back.
		case KindAssistant:
			if strings.TrimSpace(e.Text) != "" {
				add(assistant, anthropic.NewTextBlock(e.Text))
			}
		case KindToolCall:
			if info.TextLoop {
				continue
			}
			add(assistant, anthropic.NewToolUseBlock(e.CallID, toolInput(e.Arguments), e.Name))
		case KindToolOutput:
			text := OutputText(r.Harness, e)
			if info.TextLoop {
				add(user, anthropic.NewTextBlock(nonEmpty(text)))
				continue
			}
			if len(e.Images) > 0 {
				add(user, messagesToolResultWithImages(e.CallID, nonEmpty(text), e.Images, e.Error))
				continue
			}
			add(user, anthropic.NewToolResultBlock(e.CallID, nonEmpty(text), e.Error))
		}
	}
	if n := len(turns); n > 0 {
		setCacheControl(&turns[n-1].blocks[len(turns[n-1].blocks)-1])
	}
	msgs := make([]anthropic.MessageParam, len(turns))
	for i, t := range turns {
		if t.user {
			msgs[i] = anthropic.NewUserMessage(t.blocks...)
		} else {
			msgs[i] = anthropic.NewAssistantMessage(t.blocks...)
		}
	}
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(r.Model),
		MaxTokens: DefaultMaxTokens,
		Messages:  msgs,
		System: []anthropic.TextBlockParam{{
			Text:         r.Harness.Instructions(r.Env),
			CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}},
	}
	for _, t := range offered(r) {
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name:        t.Name,
			Description: anthropic.String(t.Description),
			InputSchema: inputSchema(t.Parameters),
		}})
	}
	if s, ok := r.Harness.(MessagesShaper); ok {
		s.ShapeMessages(r, &p)
	}
	thinkingEffort(r, &p)
	return p
}

// thinkingEffort maps a configured reasoning effort onto a thinking
// budget; it wins over the harness's own default. The output budget must
// exceed the thinking budget, so it grows with it.
func thinkingEffort(r Request, p *anthropic.MessageNewParams) {
	e := r.Reasoning.Effort
	if e == "" || !r.Reasoning.Reasons(r.Model) {
		return
	}
	budget := ThinkingBudget(e)
	if budget == 0 {
		p.Thinking = anthropic.ThinkingConfigParamUnion{}
		return
	}
	p.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
	if p.MaxTokens < budget+DefaultMaxTokens {
		p.MaxTokens = budget + DefaultMaxTokens
	}
}

// toolInput is the input object of a tool_use block. Arguments that are
// not a JSON object (a malformed call the model was already told about)
// are sent as an empty object so the request stays valid.
func toolInput(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	return json.RawMessage(`{}`)
}

// nonEmpty keeps text blocks valid: the API rejects empty text.
func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}

func setCacheControl(b *anthropic.ContentBlockParamUnion) {
	cc := anthropic.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	case b.OfImage != nil:
		b.OfImage.CacheControl = cc
	}
	// Thinking blocks cannot carry a cache mark; a conversation never ends
	// on one anyway (an answer is at least text or a tool call).
}

func inputSchema(s map[string]any) anthropic.ToolInputSchemaParam {
	out := anthropic.ToolInputSchemaParam{Properties: s["properties"]}
	switch req := s["required"].(type) {
	case []string:
		out.Required = req
	case []any: // a schema decoded from JSON (MCP and dynamic tools)
		for _, r := range req {
			if name, ok := r.(string); ok {
				out.Required = append(out.Required, name)
			}
		}
	}
	for k, v := range s {
		switch k {
		case "type", "properties", "required":
			continue
		}
		if out.ExtraFields == nil {
			out.ExtraFields = map[string]any{}
		}
		out.ExtraFields[k] = v
	}
	return out
}

// ParseMessage reads a complete (or accumulated) Anthropic message.
func ParseMessage(m anthropic.Message) Answer {
	var a Answer
	for _, b := range m.Content {
		switch b.Type {
		case "thinking":
			a.Entries = append(a.Entries, Entry{Kind: KindReasoning, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			a.Entries = append(a.Entries, Entry{Kind: KindReasoning, Redacted: b.Data})
		case "text":
			if b.Text != "" {
				a.Entries = append(a.Entries, Entry{Kind: KindAssistant, Text: b.Text})
			}
		case "tool_use":
			args := string(b.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			a.Entries = append(a.Entries, Entry{Kind: KindToolCall, CallID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	u := m.Usage
	a.Usage = Usage{
		InputTokens:       u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		CachedInputTokens: u.CacheReadInputTokens,
		OutputTokens:      u.OutputTokens,
	}
	return a
}
