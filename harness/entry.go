package harness

// EntryKind names what an [Entry] is.
type EntryKind string

// Entry kinds of a conversation.
const (
	KindUser       EntryKind = "user"
	KindAssistant  EntryKind = "assistant"
	KindReasoning  EntryKind = "reasoning"
	KindToolCall   EntryKind = "tool_call"
	KindToolOutput EntryKind = "tool_output"
)

// Entry is one element of a conversation as a model sees it. Entries are
// immutable once written; the transcript is an ordered list of them.
type Entry struct {
	Kind EntryKind `json:"kind"`
	// Text is the message text (user, assistant, reasoning) or the tool
	// output as the model sees it (already truncated).
	Text      string `json:"text,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// ID is the provider's own item id (reasoning items need it back).
	ID string `json:"id,omitempty"`
	// Signature is the provider's signature of a reasoning entry (Anthropic
	// thinking blocks must be sent back with it); Redacted holds the opaque
	// data of a redacted thinking block.
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
	// Encrypted is the opaque encrypted content of a Responses reasoning
	// item, sent back so the model keeps its chain of thought across steps.
	Encrypted string `json:"encrypted_content,omitempty"`
	// Images are pictures of a user message or a tool output (their bytes
	// in the store).
	Images []Image `json:"images,omitempty"`
	// Error marks a tool output that reports a failure to run the tool
	// (bad arguments, unknown tool), which some wire formats flag.
	Error bool `json:"error,omitempty"`
	// Context marks an entry the harness added (start-up context), not
	// typed by the user or written by the model.
	Context bool `json:"context,omitempty"`
}

// ToolCall is a tool call the model asked for, as it appeared on the wire.
type ToolCall struct {
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token accounting of one model call.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	ReasoningTokens   int64 `json:"reasoning_output_tokens,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.CachedInputTokens += u2.CachedInputTokens
	u.OutputTokens += u2.OutputTokens
	u.ReasoningTokens += u2.ReasoningTokens
}

// Answer is a parsed model response.
type Answer struct {
	// Entries to append to the conversation, in order.
	Entries []Entry `json:"entries"`
	Usage   Usage   `json:"usage"`
}

// Message is the assistant text of the answer, joined.
func (a Answer) Message() string {
	s := ""
	for _, e := range a.Entries {
		if e.Kind == KindAssistant {
			if s != "" {
				s += "\n"
			}
			s += e.Text
		}
	}
	return s
}

// ToolCalls are the tool calls of the answer, in order.
func (a Answer) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, e := range a.Entries {
		if e.Kind == KindToolCall {
			calls = append(calls, ToolCall{CallID: e.CallID, Name: e.Name, Arguments: e.Arguments})
		}
	}
	return calls
}
