package harness

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// Request is everything a wire renderer needs.
type Request struct {
	Model        string
	Harness      Harness
	Env          Env
	Conversation []Entry
	// CacheKey groups requests of one thread for provider-side prompt caching.
	CacheKey string
	// External tools are offered after the harness's own.
	External []ExternalTool
	// Reasoning settings (effort, summary, verbosity).
	Reasoning Reasoning
}

// RenderResponses builds an OpenAI Responses API request.
func RenderResponses(r Request) responses.ResponseNewParams {
	info := r.Harness.Info()
	items := make(responses.ResponseInputParam, 0, len(r.Conversation))
	for _, e := range r.Conversation {
		switch e.Kind {
		case KindUser:
			if len(e.Images) > 0 {
				items = append(items, responsesUserWithImages(e))
				continue
			}
			items = append(items, responses.ResponseInputItemParamOfMessage(e.Text, responses.EasyInputMessageRoleUser))
		case KindAssistant:
			items = append(items, responses.ResponseInputItemParamOfMessage(e.Text, responses.EasyInputMessageRoleAssistant))
		case KindToolCall:
			if info.TextLoop {
				continue // the command is in the assistant text already
			}
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(e.Arguments, e.CallID, e.Name))
		case KindToolOutput:
			if info.TextLoop {
				items = append(items, responses.ResponseInputItemParamOfMessage(OutputText(r.Harness, e), responses.EasyInputMessageRoleUser))
				continue
			}
			if len(e.Images) > 0 {
				items = append(items, responsesOutputWithImages(e.CallID, OutputText(r.Harness, e), e.Images))
				continue
			}
			out := responses.ResponseInputItemParamOfFunctionCallOutput(OutputText(r.Harness, e))
			out.OfFunctionCallOutput.CallID = openai.String(e.CallID)
			items = append(items, out)
		case KindReasoning:
			// Only reasoning that came with its encrypted content goes
			// back (without the id, as Codex sends it: with store=false the
			// server keeps no items to look an id up in).
			if e.Encrypted != "" {
				items = append(items, reasoningItem(e))
			}
		}
	}
	p := responses.ResponseNewParams{
		Model:        r.Model,
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Instructions: openai.String(r.Harness.Instructions(r.Env)),
		Store:        openai.Bool(false),
	}
	if r.CacheKey != "" {
		p.PromptCacheKey = openai.String(r.CacheKey)
	}
	shapeReasoning(r, &p)
	tools := offered(r)
	if len(tools) == 0 {
		return p
	}
	p.ParallelToolCalls = openai.Bool(info.ParallelToolCalls)
	for _, t := range tools {
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  t.Parameters,
			Strict:      openai.Bool(false),
		}})
	}
	return p
}

// OutputText is a tool output as harness h shows it to the model.
func OutputText(h Harness, e Entry) string {
	if f, ok := h.(OutputFormatter); ok {
		return f.FormatOutput(e)
	}
	return e.Text
}

// responseBody is the part of a Responses API response object we read.
type responseBody struct {
	Status string `json:"status"`
	Output []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Role      string `json:"role"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Content   []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
		EncryptedContent string `json:"encrypted_content"`
	} `json:"output"`
	Usage struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// ParseResponses reads a complete Responses API response object.
func ParseResponses(raw []byte) (Answer, error) {
	var b responseBody
	if err := json.Unmarshal(raw, &b); err != nil {
		return Answer{}, fmt.Errorf("decoding response: %w", err)
	}
	var a Answer
	for _, o := range b.Output {
		switch o.Type {
		case "message":
			var sb strings.Builder
			for _, c := range o.Content {
				sb.WriteString(c.Text)
				sb.WriteString(c.Refusal)
			}
			a.Entries = append(a.Entries, Entry{Kind: KindAssistant, Text: sb.String()})
		case "function_call":
			a.Entries = append(a.Entries, Entry{Kind: KindToolCall, CallID: o.CallID, Name: o.Name, Arguments: o.Arguments})
		case "reasoning":
			var parts []string
			for _, s := range o.Summary {
				parts = append(parts, s.Text)
			}
			if len(parts) > 0 || o.EncryptedContent != "" {
				a.Entries = append(a.Entries, Entry{Kind: KindReasoning, ID: o.ID, Text: strings.Join(parts, "\n"), Encrypted: o.EncryptedContent})
			}
		}
	}
	a.Usage = Usage{
		InputTokens:       b.Usage.InputTokens,
		CachedInputTokens: b.Usage.InputTokensDetails.CachedTokens,
		OutputTokens:      b.Usage.OutputTokens,
		ReasoningTokens:   b.Usage.OutputTokensDetails.ReasoningTokens,
	}
	return a, nil
}
