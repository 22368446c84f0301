package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ResponsesStream gathers the answer of a streamed Responses call from
// its events. Servers differ in where the output items are: OpenAI puts
// them in response.completed's output as well, Codex's own servers and
// several compatible ones send them only as response.output_item.done
// events and complete with an empty output. The answer is the completed
// response's output when it has any, and otherwise the streamed items in
// output order (items that never got their done event are rebuilt from
// their text and argument events).
type ResponsesStream struct {
	items     map[int]*streamedItem
	completed json.RawMessage
	failed    string
}

type streamedItem struct {
	done  json.RawMessage // the item of its output_item.done event
	added json.RawMessage // the item of its output_item.added event
	text  strings.Builder // output_text deltas
	args  strings.Builder // function_call_arguments deltas
	final *string         // function_call_arguments.done
}

// streamEvent is the part of a Responses stream event we read.
type streamEvent struct {
	Type        string          `json:"type"`
	OutputIndex *int            `json:"output_index"`
	Item        json.RawMessage `json:"item"`
	Delta       string          `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Response    json.RawMessage `json:"response"`
	Message     string          `json:"message"`
}

// Add takes one event's raw JSON. It reports whether the stream is over
// (completed, incomplete, failed or an error event).
func (s *ResponsesStream) Add(raw []byte) (bool, error) {
	var ev streamEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return false, fmt.Errorf("decoding stream event: %w", err)
	}
	switch ev.Type {
	case "response.completed", "response.incomplete":
		s.completed = ev.Response
		return true, nil
	case "response.failed":
		s.failed = failureMessage(ev.Response)
		return true, nil
	case "error":
		s.failed = ev.Message
		if s.failed == "" {
			s.failed = "the provider sent an error event"
		}
		return true, nil
	}
	if ev.OutputIndex == nil {
		return false, nil
	}
	it := s.item(*ev.OutputIndex)
	switch ev.Type {
	case "response.output_item.added":
		it.added = ev.Item
	case "response.output_item.done":
		it.done = ev.Item
	case "response.output_text.delta", "response.refusal.delta":
		it.text.WriteString(ev.Delta)
	case "response.function_call_arguments.delta":
		it.args.WriteString(ev.Delta)
	case "response.function_call_arguments.done":
		it.final = ev.Arguments
	}
	return false, nil
}

func (s *ResponsesStream) item(i int) *streamedItem {
	if s.items == nil {
		s.items = map[int]*streamedItem{}
	}
	it := s.items[i]
	if it == nil {
		it = &streamedItem{}
		s.items[i] = it
	}
	return it
}

func failureMessage(resp json.RawMessage) string {
	var r struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(resp, &r) == nil && r.Error != nil && r.Error.Message != "" {
		return r.Error.Message
	}
	return "response failed"
}

// ErrIncompleteStream is a stream that ended before the response did.
var ErrIncompleteStream = errors.New("stream ended before the response completed")

// Answer is the parsed answer once the stream is over.
func (s *ResponsesStream) Answer() (Answer, error) {
	if s.failed != "" {
		return Answer{}, errors.New(s.failed)
	}
	if s.completed == nil {
		return Answer{}, ErrIncompleteStream
	}
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(s.completed, &resp); err != nil {
		return Answer{}, fmt.Errorf("decoding response: %w", err)
	}
	if out := resp["output"]; !emptyList(out) {
		return ParseResponses(s.completed)
	}
	items, err := s.streamed()
	if err != nil {
		return Answer{}, err
	}
	resp["output"] = items
	raw, err := json.Marshal(resp)
	if err != nil {
		return Answer{}, err
	}
	return ParseResponses(raw)
}

func emptyList(raw json.RawMessage) bool {
	var l []json.RawMessage
	return len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &l) == nil && len(l) == 0
}

// streamed lists the items of the stream in output order.
func (s *ResponsesStream) streamed() (json.RawMessage, error) {
	idx := make([]int, 0, len(s.items))
	for i := range s.items {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []json.RawMessage
	for _, i := range idx {
		it := s.items[i]
		if it.done != nil {
			out = append(out, it.done)
			continue
		}
		if r := it.rebuilt(); r != nil {
			out = append(out, r)
		}
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	return json.Marshal(out)
}

// rebuilt makes an item that never got its done event from what did
// stream of it: a message from its text, a function call from its added
// item and its arguments. Nil when there is nothing to rebuild.
func (it *streamedItem) rebuilt() json.RawMessage {
	var added map[string]any
	_ = json.Unmarshal(it.added, &added)
	typ, _ := added["type"].(string)
	switch {
	case typ == "function_call":
		args := it.args.String()
		if it.final != nil {
			args = *it.final
		}
		added["arguments"] = args
		raw, _ := json.Marshal(added)
		return raw
	case it.text.Len() > 0 && (typ == "" || typ == "message"):
		raw, _ := json.Marshal(map[string]any{
			"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": it.text.String()}},
		})
		return raw
	}
	return nil
}
