package harness

import (
	"fmt"
	"slices"
	"strings"
)

// Wire APIs: the HTTP dialects of model providers.
const (
	WireResponses = "responses"
	WireChat      = "chat"
	WireMessages  = "messages"
)

// Wires lists the wire APIs in documentation order.
var Wires = []string{WireResponses, WireChat, WireMessages}

// Route is how one request is made: which harness renders it, over which
// wire API, and whether tools are offered as a schema or read from text.
type Route struct {
	Wire    string
	Harness Harness
	// TextLoop: no tool schema; commands are parsed from the reply text.
	TextLoop bool
}

// Fits reports whether harness h can be sent over wire.
func Fits(h Harness, wire string) bool {
	return slices.Contains(h.Info().Wires, wire)
}

// For lists the registered harnesses that fit wire, sorted.
func For(wire string) []string {
	var out []string
	for _, n := range Names() {
		if Fits(registry[n], wire) {
			out = append(out, n)
		}
	}
	return out
}

// Resolve finds the route for a harness name over a wire API. An unknown
// wire API, an unknown harness, or a harness that does not fit the wire API
// is an error naming what would work; nothing is sent in those cases.
func Resolve(wire, name string) (Route, error) {
	if wire == "" {
		wire = WireResponses
	}
	if !slices.Contains(Wires, wire) {
		return Route{}, fmt.Errorf("unknown wire_api %q (known: %s)", wire, strings.Join(Wires, ", "))
	}
	h, err := Lookup(name)
	if err != nil {
		return Route{}, err
	}
	if !Fits(h, wire) {
		return Route{}, fmt.Errorf("harness %q does not fit wire_api %q (it speaks %s); harnesses for %s: %s",
			name, wire, strings.Join(h.Info().Wires, ", "), wire, strings.Join(For(wire), ", "))
	}
	return Route{Wire: wire, Harness: h, TextLoop: h.Info().TextLoop}, nil
}

// Family names the harness a model family was trained with, from the
// provider id, its base URL and the model name; "" when nothing matches.
func Family(provider, baseURL, model string) string {
	m := strings.ToLower(model)
	p := strings.ToLower(provider + " " + baseURL)
	// The model name decides first: one gateway serves many families.
	switch {
	case strings.Contains(m, "claude"):
		return "claude-code"
	case strings.Contains(m, "kimi") || strings.Contains(m, "moonshot"):
		return "kimi-cli"
	case strings.Contains(m, "qwen") || strings.Contains(m, "qwq"):
		return "qwen-code"
	case strings.Contains(m, "deepseek"):
		return "deepseek-tui"
	case isOpenAIModel(m):
		return "codex"
	}
	switch {
	case strings.Contains(p, "anthropic"):
		return "claude-code"
	case strings.Contains(p, "moonshot") || strings.Contains(p, "kimi"):
		return "kimi-cli"
	case strings.Contains(p, "dashscope") || strings.Contains(p, "qwen"):
		return "qwen-code"
	case strings.Contains(p, "deepseek"):
		return "deepseek-tui"
	}
	return ""
}

// isOpenAIModel matches gpt-*, chatgpt-*, codex-* and the o-series (o1,
// o3-mini, o4-mini, ...), with or without a vendor prefix ("openai/gpt-5").
func isOpenAIModel(m string) bool {
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "gpt") || strings.HasPrefix(m, "chatgpt") || strings.HasPrefix(m, "codex") {
		return true
	}
	return len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9'
}

// Default picks the harness when none is configured: any Messages provider
// gets claude-code; otherwise the model family's harness when it fits the
// wire API, else codex (or the first harness that fits).
func Default(wire, provider, baseURL, model string) string {
	if wire == WireMessages {
		return "claude-code"
	}
	if f := Family(provider, baseURL, model); f != "" {
		if h, err := Lookup(f); err == nil && Fits(h, wire) {
			return f
		}
	}
	if h, err := Lookup("codex"); err == nil && Fits(h, wire) {
		return "codex"
	}
	if fit := For(wire); len(fit) > 0 {
		return fit[0]
	}
	return "codex"
}

// Choose resolves the route of a thread: the explicit harness when one is
// set (it always wins, and must fit), else the default for the model.
func Choose(explicit, wire, provider, baseURL, model string) (Route, error) {
	if wire == "" {
		wire = WireResponses
	}
	name := explicit
	if name == "" {
		name = Default(wire, provider, baseURL, model)
	}
	return Resolve(wire, name)
}
