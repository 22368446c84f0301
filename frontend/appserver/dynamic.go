package appserver

import (
	"encoding/json"
	"regexp"

	"github.com/interpreter-dev/interpreter/harness"
)

// dynamicToolName is what model providers accept as a function name.
var dynamicToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// decodeDynamicTools reads thread/start's dynamicTools (DynamicToolSpec:
// name, description, inputSchema, namespace). The model sees each tool
// under its name; a call of one is sent to the client as item/tool/call.
func decodeDynamicTools(raw json.RawMessage) ([]harness.ExternalTool, error) {
	var specs []json.RawMessage
	if err := json.Unmarshal(raw, &specs); err != nil {
		return nil, invalidRequest("Invalid request: invalid type: %s for field `dynamicTools`, expected an array", jsonKind(raw))
	}
	var tools []harness.ExternalTool
	seen := map[string]bool{}
	for i, r := range specs {
		var s struct {
			Name        *string         `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Namespace   *string         `json:"namespace"`
		}
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, invalidRequest("Invalid request: invalid type: %s for field `dynamicTools[%d]`, expected a tool spec {name, description, inputSchema}", jsonKind(r), i)
		}
		if s.Name == nil {
			return nil, invalidRequest("Invalid request: missing field `name` in `dynamicTools[%d]`", i)
		}
		if !dynamicToolName.MatchString(*s.Name) {
			return nil, invalidRequest("Invalid request: dynamicTools[%d].name %q must be 1 to 64 letters, digits, `_` or `-`", i, *s.Name)
		}
		if seen[*s.Name] {
			return nil, invalidRequest("Invalid request: dynamicTools[%d].name %q is declared twice", i, *s.Name)
		}
		seen[*s.Name] = true
		var params map[string]any
		if isSet(s.InputSchema) {
			if err := json.Unmarshal(s.InputSchema, &params); err != nil {
				return nil, invalidRequest("Invalid request: dynamicTools[%d].inputSchema must be a JSON Schema object", i)
			}
		}
		t := harness.ExternalTool{Name: *s.Name, Description: s.Description, Parameters: params,
			Source: harness.SourceDynamic, Tool: *s.Name}
		if s.Namespace != nil {
			t.Server = *s.Namespace
		}
		tools = append(tools, t)
	}
	return tools, nil
}
