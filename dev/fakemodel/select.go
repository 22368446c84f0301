package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// conversation is what step selection needs from a request body.
type conversation struct {
	userTexts   int    // user text messages in the request
	lastUser    string // text of the last of them
	toolResults int    // tool results after the last user text message
	// outputs are the texts of those tool results, in order (Responses
	// only), for the {{output.N...}} references of a step.
	outputs []string
}

// addUser records a user text message. A sub-agent's notice (Codex's
// <subagent_notification>, which a parent's turn adds after tool outputs)
// is not one: the parent's turn goes on with its scripted steps.
func (c *conversation) addUser(text string) {
	if strings.HasPrefix(text, subAgentNotice) {
		return
	}
	c.userTexts++
	c.lastUser = text
	c.toolResults = 0
	c.outputs = nil
}

const subAgentNotice = "<subagent_notification>"

// call is one resolved tool call.
type call struct {
	ID, Name, Args string // Args: a compact JSON object
}

// reply is a resolved answer for one request.
type reply struct {
	turn, step int
	key        stepKey
	scripted   bool // a real scripted step, so failures and drops apply
	text       string
	reasoning  string
	calls      []call
	usage      Usage
	delay      time.Duration
	chunkDelay time.Duration
	failStatus int
	failTimes  int
	dropStream bool
	itemsOnly  bool // see Script.ResponsesItemsOnly
}

func (r reply) id(prefix string) string {
	if r.turn < 0 {
		return prefix + "_nomatch"
	}
	return fmt.Sprintf("%s_t%d_s%d", prefix, r.turn, r.step)
}

type stepKey struct{ turn, step int }

// callID is the deterministic id of tool call i of (turn, step).
func callID(turn, step, i int) string {
	return fmt.Sprintf("call_t%d_s%d_%d", turn, step, i)
}

// expandSteps expands Repeat.
func expandSteps(steps []Step) []Step {
	var out []Step
	for _, st := range steps {
		st.ToolCalls = slices.Clone(st.ToolCalls)
		for range max(st.Repeat, 1) {
			out = append(out, st)
		}
	}
	return out
}

// pickTurn returns the turn index for c, or -1 when the script has Match
// turns, none matches, and no turn without Match exists.
func (s *Server) pickTurn(c conversation) int {
	var plain []int
	for i, match := range s.matches {
		if match == "" {
			plain = append(plain, i)
			continue
		}
		if strings.Contains(c.lastUser, match) {
			return i
		}
	}
	if len(plain) == 0 {
		return -1
	}
	return plain[min(max(c.userTexts-1, 0), len(plain)-1)]
}

// selectReply resolves the scripted answer for a request.
func (s *Server) selectReply(c conversation, body []byte) reply {
	r := reply{turn: -1, step: c.toolResults, itemsOnly: s.itemsOnly}
	r.usage = Usage{InputTokens: len(body) / 4, OutputTokens: 10}
	ti := s.pickTurn(c)
	if ti < 0 {
		r.text = "fakemodel: no scripted turn matches the last user message"
		return r
	}
	r.turn = ti
	steps := s.steps[ti]
	if r.step >= len(steps) {
		r.text = steps[len(steps)-1].Text
		if r.text == "" {
			r.text = "done"
		}
		return r
	}
	st := steps[r.step]
	r.scripted = true
	r.key = stepKey{ti, r.step}
	r.text, r.reasoning = c.expand(st.Text, false), st.Reasoning
	r.delay = time.Duration(st.DelayMs) * time.Millisecond
	r.chunkDelay = time.Duration(st.ChunkDelayMs) * time.Millisecond
	r.failStatus, r.failTimes, r.dropStream = st.FailStatus, st.failTimes(), st.DropStream
	if st.Usage != nil {
		r.usage = *st.Usage
	}
	if st.Shell != "" {
		r.calls = append(r.calls, call{Name: ShellToolName, Args: shellArgs(st.Shell)})
	}
	for _, tc := range st.ToolCalls {
		args, _ := compactObject(tc.Arguments) // validated by New
		r.calls = append(r.calls, call{Name: tc.Name, Args: c.expand(args, true)})
	}
	for i := range r.calls {
		r.calls[i].ID = callID(ti, r.step, i)
	}
	return r
}

// outcome is what a request gets after the failure/drop counters are
// consulted.
type outcome int

const (
	outcomeAnswer outcome = iota
	outcomeFail
	outcomeDrop
)

type stepState struct {
	fails   int
	dropped bool
}

// decide consults and advances the counters for r's step.
func (s *Server) decide(r reply) outcome {
	if !r.scripted {
		return outcomeAnswer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state[r.key]
	if st == nil {
		st = &stepState{}
		s.state[r.key] = st
	}
	switch {
	case st.fails < r.failTimes:
		st.fails++
		return outcomeFail
	case r.dropStream && !st.dropped:
		st.dropped = true
		return outcomeDrop
	}
	return outcomeAnswer
}

func shellArgs(command string) string {
	return marshalNoEscape(map[string]any{"command": []string{"bash", "-lc", command}})
}

// marshalNoEscape marshals v without HTML escaping, so commands stay
// readable.
func marshalNoEscape(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("fakemodel: marshal: %v", err)) // only plain values reach here
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// splitText cuts s into up to n pieces on rune boundaries (n >= 1).
func splitText(s string, n int) []string {
	runes := []rune(s)
	if len(runes) == 0 {
		return nil
	}
	size := (len(runes) + n - 1) / n
	var out []string
	for len(runes) > 0 {
		k := min(size, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

// contentText extracts the text of a message content that is either a
// string or an array of parts with a "text" field.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
