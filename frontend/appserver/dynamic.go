package appserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// dynamicToolName is what model providers accept as a function name.
var dynamicToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// decodeDynamicTools reads thread/start's dynamicTools (DynamicToolSpec:
// name, description, inputSchema, namespace). The model sees each tool
// under its name; a call of one is sent to the client as item/tool/call.
func decodeDynamicTools(raw json.RawMessage) ([]workflows.ExternalTool, error) {
	var specs []json.RawMessage
	if err := json.Unmarshal(raw, &specs); err != nil {
		return nil, invalidRequest("Invalid request: invalid type: %s for field `dynamicTools`, expected an array", jsonKind(raw))
	}
	var tools []workflows.ExternalTool
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
		t := workflows.ExternalTool{Name: *s.Name, Description: s.Description, Parameters: params,
			Source: workflows.ToolSourceDynamic, Tool: *s.Name}
		if s.Namespace != nil {
			if *s.Namespace == userInputNamespace {
				return nil, invalidRequest("Invalid request: dynamicTools[%d].namespace %q is reserved for this server's own tools", i, *s.Namespace)
			}
			t.Server = *s.Namespace
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// timeoutParams are this server's own timeout parameters of thread/start
// and turn/start (milliseconds; unknown to the reference, whose clients
// leave them out): the turn timeout, the stall timeout (no event for that
// long fails the turn; <= 0 turns it off) and the approval timeout.
type timeoutParams struct {
	TurnTimeoutMs     *int64 `json:"turnTimeoutMs"`
	StallTimeoutMs    *int64 `json:"stallTimeoutMs"`
	ApprovalTimeoutMs *int64 `json:"approvalTimeoutMs"`
}

func (p timeoutParams) check() error {
	if p.TurnTimeoutMs != nil && *p.TurnTimeoutMs < 0 {
		return invalidRequest("Invalid request: `turnTimeoutMs` must not be negative (0: no turn timeout)")
	}
	if p.ApprovalTimeoutMs != nil && *p.ApprovalTimeoutMs < 0 {
		return invalidRequest("Invalid request: `approvalTimeoutMs` must not be negative (0: wait as long as the turn lives)")
	}
	return nil
}

// configKeys are the timeouts as config.toml keys (thread/start).
func (p timeoutParams) configKeys(cfg map[string]any) map[string]any {
	set := func(k string, v *int64) {
		if v == nil {
			return
		}
		if cfg == nil {
			cfg = map[string]any{}
		}
		cfg[k] = fmt.Sprintf("%dms", max(*v, 0))
	}
	set("turn_timeout", p.TurnTimeoutMs)
	set("stall_timeout", p.StallTimeoutMs)
	set("approvals.timeout", p.ApprovalTimeoutMs)
	return cfg
}

// overrides are the timeouts as a turn's overrides (turn/start).
func (p timeoutParams) overrides() *workflows.Timeouts {
	if p.TurnTimeoutMs == nil && p.StallTimeoutMs == nil && p.ApprovalTimeoutMs == nil {
		return nil
	}
	ms := func(v *int64) *time.Duration {
		if v == nil {
			return nil
		}
		d := time.Duration(*v) * time.Millisecond
		return &d
	}
	return &workflows.Timeouts{Turn: ms(p.TurnTimeoutMs), Stall: ms(p.StallTimeoutMs), Approval: ms(p.ApprovalTimeoutMs)}
}
