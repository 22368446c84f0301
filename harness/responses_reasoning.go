package harness

import (
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// shapeReasoning asks a reasoning model for its effort and summary, and
// for the encrypted content of its reasoning (with store=false that is
// the only way to give the model its reasoning back at the next step).
func shapeReasoning(r Request, p *responses.ResponseNewParams) {
	if v := r.Reasoning.Verbosity; v != "" {
		p.Text.Verbosity = responses.ResponseTextConfigVerbosity(v)
	}
	if !r.Reasoning.Reasons(r.Model) {
		return
	}
	if e := r.Reasoning.Effort; e != "" {
		p.Reasoning.Effort = shared.ReasoningEffort(e)
	}
	switch s := r.Reasoning.Summary; s {
	case "none":
	case "":
		p.Reasoning.Summary = shared.ReasoningSummaryAuto
	default:
		p.Reasoning.Summary = shared.ReasoningSummary(s)
	}
	p.Include = append(p.Include, responses.ResponseIncludableReasoningEncryptedContent)
}

// reasoningItem is a reasoning entry as a Responses input item.
func reasoningItem(e Entry) responses.ResponseInputItemUnionParam {
	summary := []map[string]any{}
	if e.Text != "" {
		summary = append(summary, map[string]any{"type": "summary_text", "text": e.Text})
	}
	return param.Override[responses.ResponseInputItemUnionParam](map[string]any{
		"type": "reasoning", "summary": summary, "encrypted_content": e.Encrypted,
	})
}
