package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/claudecode"
	"github.com/interpreter-dev/interpreter/harness/codex"
	"github.com/interpreter-dev/interpreter/harness/terminus2"
)

var lookup = harness.ExternalTool{
	Name: "mcp__docs__lookup", Description: "Look a term up.", Source: harness.SourceMCP, Server: "docs", Tool: "lookup",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"term": map[string]any{"type": "string", "minLength": float64(1)}},
		"required":   []any{"term"},
		"$defs":      map[string]any{"x": map[string]any{"type": "string"}},
	},
}

// External tools reach every wire API after the harness's own, with their
// schema as given (required kept even when it was decoded from JSON).
func TestExternalToolsRendered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(harness.Request) any
	}{
		{"responses", func(r harness.Request) any { return harness.RenderResponses(r) }},
		{"chat", func(r harness.Request) any { return harness.RenderChat(r) }},
		{"messages", func(r harness.Request) any { return harness.RenderMessages(r) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h harness.Harness = codex.Harness{}
			if tc.name == "messages" {
				h = claudecode.Harness{}
			}
			r := harness.Request{Model: "m", Harness: h, External: []harness.ExternalTool{lookup}}
			b, err := json.Marshal(tc.render(r))
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			for _, want := range []string{`"mcp__docs__lookup"`, `"minLength":1`, `"$defs"`, `"required":["term"]`} {
				if !strings.Contains(s, want) {
					t.Errorf("rendered request lacks %s:\n%s", want, s)
				}
			}
			if strings.Index(s, `"mcp__docs__lookup"`) < strings.LastIndex(s, `"name":"`+h.Tools()[0].Name+`"`) {
				t.Errorf("external tool offered before the harness's own")
			}
		})
	}
}

func TestExternalToolsNotOfferedToTextLoops(t *testing.T) {
	r := harness.Request{Model: "m", Harness: terminus2.Harness{}, External: []harness.ExternalTool{lookup}}
	b, _ := json.Marshal(harness.RenderChat(r))
	if strings.Contains(string(b), "mcp__docs__lookup") {
		t.Fatalf("text-loop harness offered an external tool: %s", b)
	}
}

func TestDecodeCallExternal(t *testing.T) {
	inv := harness.DecodeCall(codex.Harness{}, []harness.ExternalTool{lookup},
		harness.ToolCall{CallID: "c1", Name: "mcp__docs__lookup", Arguments: `{"term":"x"}`})
	if inv.Tool != harness.ToolExternal || inv.External != "mcp__docs__lookup" || inv.Arguments != `{"term":"x"}` {
		t.Fatalf("external call decoded as %+v", inv)
	}
	inv = harness.DecodeCall(codex.Harness{}, []harness.ExternalTool{lookup},
		harness.ToolCall{CallID: "c2", Name: "shell", Arguments: `{"command":["ls"]}`})
	if inv.Tool != harness.ToolShell {
		t.Fatalf("core call decoded as %+v", inv)
	}
}
