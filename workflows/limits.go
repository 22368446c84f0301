package workflows

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Input limits. Every front end refuses text over them before it sends
// anything, with the message of an [InputTooLargeError]; the client calls
// of this package and the update validators refuse it again. An update
// over Temporal's payload limit (2 MB) would fail its workflow task even
// when refused (the refusal carries the request back), so the front ends'
// check is the one that counts.
const (
	// MaxInputChars bounds one piece of client text: a turn's input,
	// steered input, a thread's instructions (Codex's limit for user
	// input, in characters).
	MaxInputChars = 1 << 20
	// MaxInputBytes bounds the same text as it travels, encoded as JSON
	// (escapes and multi-byte characters make it longer than its count of
	// characters).
	MaxInputBytes = 1536 << 10
	// MaxToolResultBytes bounds the text of a tool result a client sends
	// back (an app-server dynamic tool), as MCP tool results are bounded;
	// front ends cut longer ones with a note (see [TruncateText]).
	MaxToolResultBytes = 64 << 10
	// maxTurnInputBytes bounds what a turn's workflow starts with: the
	// thread's settings and the input together.
	maxTurnInputBytes = 1792 << 10
)

// InputTooLargeError refuses text over [MaxInputChars] or [MaxInputBytes].
type InputTooLargeError struct {
	// What names the text as the client knows it ("Input",
	// "baseInstructions", ...).
	What  string
	Chars int
	Bytes int
}

func (e *InputTooLargeError) Error() string {
	what := e.What
	if what == "" {
		what = "Input"
	}
	if e.Chars > MaxInputChars {
		return fmt.Sprintf("%s exceeds the maximum length of %d characters.", what, MaxInputChars)
	}
	return fmt.Sprintf("%s exceeds the maximum size of %d bytes (encoded as JSON; it is %d).", what, MaxInputBytes, e.Bytes)
}

// CheckInput refuses text over the input limits with an
// *[InputTooLargeError] naming it as what.
func CheckInput(what, text string) error {
	if len(text) <= (MaxInputBytes-2)/6 { // at most six bytes a byte, and the quotes
		return nil // short enough whatever it holds
	}
	chars := utf8.RuneCountInString(text)
	if chars > MaxInputChars {
		return &InputTooLargeError{What: what, Chars: chars}
	}
	if n := jsonSize(text); n > MaxInputBytes {
		return &InputTooLargeError{What: what, Chars: chars, Bytes: n}
	}
	return nil
}

// CheckThreadConfig refuses a thread's settings whose client text is over
// the input limits, or that are too large together.
func CheckThreadConfig(cfg ThreadConfig) error {
	for _, f := range []struct{ what, text string }{
		{"base instructions", cfg.BaseInstructions},
		{"developer instructions", cfg.DeveloperInstructions},
		{"compact prompt", cfg.CompactPrompt},
	} {
		if err := CheckInput(f.what, f.text); err != nil {
			return err
		}
	}
	if n := jsonSize(cfg); n > MaxInputBytes {
		return &InputTooLargeError{What: "The thread's settings", Bytes: n}
	}
	return nil
}

// CheckThreadStart refuses a new thread's first turn when its input or
// settings are over the input limits, or too large together for the
// turn's workflow to start with.
func CheckThreadStart(cfg ThreadConfig, prompt string) error {
	if err := CheckInput("Input", prompt); err != nil {
		return err
	}
	if err := CheckThreadConfig(cfg); err != nil {
		return err
	}
	if a, b := jsonSize(cfg), jsonSize(prompt); a+b > maxTurnInputBytes {
		return fmt.Errorf("input refused: this input (%d bytes as JSON) and the thread's settings (%d bytes) exceed the %d bytes a turn may start with", b, a, maxTurnInputBytes)
	}
	return nil
}

// CheckThreadName refuses a thread name over the limit.
func CheckThreadName(name string) error {
	if len(name) > maxThreadName {
		return Refusal(ErrOverLimit, "name is %d bytes long; the limit is %d", len(name), maxThreadName)
	}
	return nil
}

// jsonSize is the length of v encoded as the data converter encodes it.
// encoding/json writes map keys sorted, so the size does not depend on map
// order (which is why workflowcheck is told to let it be).
func jsonSize(v any) int {
	//workflowcheck:ignore
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// TruncateText keeps at most max bytes of s, note included: the cut is
// at a character boundary and the note says how much was cut.
func TruncateText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := func(cut int) string {
		return fmt.Sprintf("\n[... %d of %d bytes cut: the result was too long]", len(s)-cut, len(s))
	}
	cut := max - len(note(0))
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(cut)
}
