package harness_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all"
)

var (
	all = []string{harness.WireResponses, harness.WireChat, harness.WireMessages}
	// routes is the routing table: the wire APIs each harness fits.
	routes = map[string][]string{
		"codex":          {harness.WireResponses, harness.WireChat},
		"codex-shell":    {harness.WireResponses, harness.WireChat},
		"claude-code":    {harness.WireMessages, harness.WireChat},
		"kimi-cli":       {harness.WireChat},
		"qwen-code":      {harness.WireChat},
		"deepseek-tui":   {harness.WireChat},
		"opencode":       all,
		"minimal":        all,
		"swe-agent":      all,
		"mini-swe-agent": all,
		"terminus-2":     all,
	}
	validFor = map[string]string{
		harness.WireResponses: "codex, codex-shell, mini-swe-agent, minimal, opencode, swe-agent, terminus-2",
		harness.WireChat:      "claude-code, codex, codex-shell, deepseek-tui, kimi-cli, mini-swe-agent, minimal, opencode, qwen-code, swe-agent, terminus-2",
		harness.WireMessages:  "claude-code, mini-swe-agent, minimal, opencode, swe-agent, terminus-2",
	}
)

func TestEveryHarnessIsRegistered(t *testing.T) {
	var want []string
	for n := range routes {
		want = append(want, n)
	}
	slices.Sort(want)
	if got := harness.Names(); !slices.Equal(got, want) {
		t.Fatalf("registered %v, want %v", got, want)
	}
}

// Every combination of wire API and harness: a route, or a refusal that
// names the harnesses that would fit.
func TestRoutingTable(t *testing.T) {
	for name, fits := range routes {
		for _, wire := range all {
			r, err := harness.Resolve(wire, name)
			if slices.Contains(fits, wire) {
				if err != nil {
					t.Errorf("%s over %s: %v", name, wire, err)
					continue
				}
				if r.Wire != wire || r.Harness.Info().Name != name || r.TextLoop != r.Harness.Info().TextLoop {
					t.Errorf("%s over %s: route %+v", name, wire, r)
				}
				continue
			}
			if err == nil {
				t.Errorf("%s over %s: accepted, want a refusal", name, wire)
				continue
			}
			want := "harnesses for " + wire + ": " + validFor[wire]
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `harness "`+name+`" does not fit wire_api "`+wire+`"`) {
				t.Errorf("%s over %s: %q does not say %q", name, wire, err, want)
			}
		}
	}
	for wire, list := range validFor {
		if got := strings.Join(harness.For(wire), ", "); got != list {
			t.Errorf("For(%s) = %s, want %s", wire, got, list)
		}
	}
}

func TestResolveBadInput(t *testing.T) {
	_, err := harness.Resolve("chat", "nope")
	if err == nil || !strings.Contains(err.Error(), `unknown harness "nope" (known: claude-code, codex,`) {
		t.Fatalf("unknown harness: %v", err)
	}
	_, err = harness.Resolve("grpc", "codex")
	if err == nil || !strings.Contains(err.Error(), `unknown wire_api "grpc"`) {
		t.Fatalf("unknown wire: %v", err)
	}
	if r, err := harness.Resolve("", "codex"); err != nil || r.Wire != harness.WireResponses {
		t.Fatalf("empty wire means responses: %+v %v", r, err)
	}
}

// The default harness follows the model family, and any Messages provider
// gets claude-code; a family harness that does not fit the wire falls back.
func TestDefaultByModelFamily(t *testing.T) {
	cases := []struct{ wire, provider, base, model, want string }{
		{"messages", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5", "claude-code"},
		{"messages", "kimi", "https://api.moonshot.ai/anthropic", "kimi-k2", "claude-code"},
		{"chat", "openrouter", "https://openrouter.ai/api/v1", "anthropic/claude-3.7-sonnet", "claude-code"},
		{"chat", "moonshot", "https://api.moonshot.ai/v1", "kimi-k2-0905-preview", "kimi-cli"},
		{"chat", "local", "http://localhost:8000/v1", "moonshotai/Kimi-K2-Instruct", "kimi-cli"},
		{"chat", "moonshot", "https://api.moonshot.cn/v1", "some-new-model", "kimi-cli"},
		{"chat", "dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen3-coder-plus", "qwen-code"},
		{"chat", "oss", "http://localhost:11434/v1", "qwq:32b", "qwen-code"},
		{"chat", "ds", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "x", "qwen-code"},
		{"chat", "deepseek", "https://api.deepseek.com", "deepseek-chat", "deepseek-tui"},
		{"chat", "oss", "http://localhost:11434/v1", "deepseek-r1:14b", "deepseek-tui"},
		{"responses", "openai", "https://api.openai.com/v1", "gpt-5.1", "codex"},
		{"responses", "openai", "https://api.openai.com/v1", "o3", "codex"},
		{"chat", "oss", "http://localhost:11434/v1", "gpt-oss:20b", "codex"},
		{"chat", "x", "http://x", "openai/o4-mini", "codex"},
		{"responses", "demo", "", "demo", "codex"},
		{"chat", "oss", "http://localhost:11434/v1", "llama3.3", "codex"},
		// Family harnesses that do not fit the wire fall back to codex.
		{"responses", "gw", "http://gw", "kimi-k2", "codex"},
		{"responses", "gw", "http://gw", "claude-sonnet-4-5", "codex"},
	}
	for _, c := range cases {
		if got := harness.Default(c.wire, c.provider, c.base, c.model); got != c.want {
			t.Errorf("Default(%s, %s, %s, %s) = %s, want %s", c.wire, c.provider, c.base, c.model, got, c.want)
		}
	}
}

// An explicit harness wins over the default, and must fit.
func TestChooseExplicitWins(t *testing.T) {
	r, err := harness.Choose("minimal", "messages", "anthropic", "", "claude-opus-4-1")
	if err != nil || r.Harness.Info().Name != "minimal" {
		t.Fatalf("explicit minimal: %+v %v", r, err)
	}
	r, err = harness.Choose("", "messages", "anthropic", "", "claude-opus-4-1")
	if err != nil || r.Harness.Info().Name != "claude-code" {
		t.Fatalf("default: %+v %v", r, err)
	}
	if _, err := harness.Choose("kimi-cli", "messages", "anthropic", "", "claude-opus-4-1"); err == nil ||
		!strings.Contains(err.Error(), "harnesses for messages: claude-code, mini-swe-agent") {
		t.Fatalf("explicit kimi-cli over messages: %v", err)
	}
}
