package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Script is what the fake model answers, turn by turn.
type Script struct {
	Turns []Turn `json:"turns"`
	// ResponsesItemsOnly makes streamed Responses answers end with a
	// response.completed whose output is empty: the items come only as
	// response.output_item.done events, as Codex's own test servers and
	// several OpenAI-compatible servers send them.
	ResponsesItemsOnly bool `json:"responses_items_only,omitempty"`
}

// Turn answers one user message. Its steps answer the successive model
// requests of that turn: step i answers the request that carries i tool
// results after the user message.
type Turn struct {
	// Match, if set, selects this turn when the last user message of the
	// request contains it (first matching turn wins). Sub-agent
	// notifications do not count as user messages.
	Match string `json:"match,omitempty"`
	Steps []Step `json:"steps"`
}

// Step is one model answer.
type Step struct {
	// Text is the assistant message text (the final answer when there are no
	// tool calls).
	Text string `json:"text,omitempty"`
	// Reasoning is an optional reasoning summary: a reasoning item in the
	// Responses API, a thinking block in Anthropic Messages, ignored in Chat
	// Completions.
	Reasoning string `json:"reasoning,omitempty"`
	// Shell is shorthand for one tool call named "shell" with arguments
	// {"command":["bash","-lc",Shell]}. It comes before ToolCalls.
	Shell     string     `json:"shell,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Repeat makes this step stand for N identical consecutive steps (0 or 1
	// means once).
	Repeat int `json:"repeat,omitempty"`
	// DelayMs is waited before answering; a cancelled request stops the wait.
	DelayMs int `json:"delay_ms,omitempty"`
	// ChunkDelayMs is waited between the events of a streamed answer, so
	// the text arrives piece by piece over time.
	ChunkDelayMs int `json:"chunk_delay_ms,omitempty"`
	// FailStatus makes the first FailTimes requests selecting this step answer
	// with this HTTP status and a provider-shaped JSON error body.
	FailStatus int `json:"fail_status,omitempty"`
	// FailTimes defaults to 1 when FailStatus is set.
	FailTimes int `json:"fail_times,omitempty"`
	// DropStream makes the first request selecting this step (after any
	// scripted failures) send part of the answer and then cut the connection.
	DropStream bool `json:"drop_stream,omitempty"`
	// Usage is the token usage to report. Default: input tokens = request
	// body bytes / 4, output tokens = 10.
	Usage *Usage `json:"usage,omitempty"`
}

// ToolCall is one function call the model makes.
type ToolCall struct {
	Name string `json:"name"`
	// Arguments is a JSON object; empty means {}.
	Arguments json.RawMessage `json:"arguments"`
}

// Usage is reported token usage. InputTokens counts the whole prompt,
// cached part included (OpenAI convention); the Anthropic wire format
// reports input_tokens = InputTokens - CachedInputTokens and
// cache_read_input_tokens = CachedInputTokens.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_input_tokens"`
}

// ShellToolName is the tool name used by Step.Shell.
const ShellToolName = "shell"

// LoadScript reads and strictly decodes a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return s, nil
}

// ParseScript strictly decodes a script: unknown fields, trailing data and
// invalid values are errors.
func ParseScript(data []byte) (*Script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse script: %w", describeJSONError(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("parse script: unexpected data after the top-level object")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	return &s, nil
}

// Validate checks that the script can be served.
func (s *Script) Validate() error {
	if s == nil || len(s.Turns) == 0 {
		return errors.New("script has no turns")
	}
	for ti, t := range s.Turns {
		if len(t.Steps) == 0 {
			return fmt.Errorf("turn %d has no steps", ti)
		}
		for si, st := range t.Steps {
			if err := st.validate(); err != nil {
				return fmt.Errorf("turn %d step %d: %w", ti, si, err)
			}
		}
	}
	return nil
}

func (st Step) validate() error {
	switch {
	case st.Repeat < 0:
		return fmt.Errorf("repeat %d is negative", st.Repeat)
	case st.DelayMs < 0:
		return fmt.Errorf("delay_ms %d is negative", st.DelayMs)
	case st.ChunkDelayMs < 0:
		return fmt.Errorf("chunk_delay_ms %d is negative", st.ChunkDelayMs)
	case st.FailStatus != 0 && (st.FailStatus < 400 || st.FailStatus > 599):
		return fmt.Errorf("fail_status %d is not an HTTP error status (400-599)", st.FailStatus)
	case st.FailTimes < 0:
		return fmt.Errorf("fail_times %d is negative", st.FailTimes)
	case st.FailTimes > 0 && st.FailStatus == 0:
		return errors.New("fail_times needs fail_status")
	}
	if u := st.Usage; u != nil && (u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0) {
		return errors.New("usage counts must not be negative")
	}
	for i, tc := range st.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool_calls[%d]: name is required", i)
		}
		if _, err := compactObject(tc.Arguments); err != nil {
			return fmt.Errorf("tool_calls[%d] %s: %w", i, tc.Name, err)
		}
	}
	return nil
}

// failTimes is how many requests selecting the step fail.
func (st Step) failTimes() int {
	if st.FailStatus == 0 {
		return 0
	}
	return max(st.FailTimes, 1)
}

// compactObject returns raw compacted, checking it is a JSON object; empty
// means {}.
func compactObject(raw json.RawMessage) (string, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return "{}", nil
	}
	if trimmed[0] != '{' {
		return "", errors.New("arguments must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	return buf.String(), nil
}

// describeJSONError adds a line and column to JSON syntax and type errors.
func describeJSONError(data []byte, err error) error {
	var offset int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	if offset < 0 || offset > int64(len(data)) {
		return err
	}
	// The offset is just past the byte where decoding stopped.
	line, col := 1, 0
	for _, b := range data[:offset] {
		if b == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %w", line, max(col, 1), err)
}

// DemoScript is the built-in demo: every user message gets the same turn,
// which lists the working directory, prints it, then says it is the demo.
func DemoScript() *Script {
	return &Script{Turns: []Turn{{Steps: []Step{
		{
			Reasoning: "Demo: look around the working directory first.",
			Text:      "Let me look at the working directory.",
			Shell:     "ls -la",
		},
		{Shell: "pwd"},
		{Text: "This answer comes from the scripted demo model (fakemodel), not a real LLM. " +
			"It listed the working directory with `ls -la`, printed it with `pwd`, and stops here."},
	}}}}
}
