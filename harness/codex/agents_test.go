package codex

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"
)

// TestAgentToolsMatchCodex0171 compares the sub-agent tools with what
// Codex 0.171 sent a recording model server (testdata, captured from
// `codex exec` with its default features): the same tool names, and for
// each the same parameters, types and required list. agent_type is ours
// (Open Interpreter's role); the descriptions are our own text.
func TestAgentToolsMatchCodex0171(t *testing.T) {
	raw, err := os.ReadFile("testdata/multi_agent_v1-0.171.json")
	if err != nil {
		t.Fatal(err)
	}
	var ns struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &ns); err != nil {
		t.Fatal(err)
	}
	if ns.Type != "namespace" || ns.Name != AgentNamespace {
		t.Fatalf("golden is %s %s", ns.Type, ns.Name)
	}
	ours := map[string]map[string]any{}
	for _, tool := range AgentTools() {
		b, _ := json.Marshal(tool.Parameters)
		var p map[string]any
		_ = json.Unmarshal(b, &p)
		ours[tool.Name] = p
	}
	var names []string
	for _, want := range ns.Tools {
		names = append(names, want.Name)
		got, ok := ours[want.Name]
		if !ok {
			t.Errorf("tool %s missing", want.Name)
			continue
		}
		if !reflect.DeepEqual(shape(want.Parameters), shape(got)) {
			t.Errorf("%s parameters:\n got %v\nwant %v", want.Name, shape(got), shape(want.Parameters))
		}
	}
	if len(ours) != len(ns.Tools) {
		t.Errorf("we offer %d tools, Codex %d (%v)", len(ours), len(ns.Tools), names)
	}
}

// shape is a schema without descriptions and without our agent_type.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "description" || k == "agent_type" {
				continue
			}
			out[k] = shape(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = shape(x)
		}
		if len(out) > 0 {
			if _, ok := out[0].(string); ok {
				s := make([]string, len(out))
				for i := range out {
					s[i] = out[i].(string)
				}
				sort.Strings(s)
				for i := range s {
					out[i] = s[i]
				}
			}
		}
		return out
	}
	return v
}
