package harness

// ToolExternal is the invocation of a tool that is none of the core tools:
// an MCP server's tool or a front end's dynamic tool. The harness does not
// interpret it; the workflow routes it by [ExternalTool.Source].
const ToolExternal = "external"

// Sources of external tools.
const (
	SourceMCP     = "mcp"
	SourceDynamic = "dynamic"
	// SourceAgents are the sub-agent tools (spawn_agent and its
	// siblings): the workflow runs them on its own threads.
	SourceAgents = "agents"
)

// ExternalTool is a tool offered to the model besides the harness's own.
// Its schema goes to the provider as given.
type ExternalTool struct {
	// Name is the tool's name as the model sees it (for MCP tools
	// mcp__<server>__<tool>, sanitized).
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
	Source      string         `json:"source"`
	// Server and Tool name the tool at its source (Server is empty for
	// dynamic tools).
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// offered is every tool of a request: the harness's, then the external
// ones. A text-loop harness offers none.
func offered(r Request) []ToolSpec {
	if r.Harness.Info().TextLoop {
		return nil
	}
	tools := r.Harness.Tools()
	for _, t := range r.External {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, ToolSpec{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return tools
}

// DecodeCall decodes a call: a call of an external tool becomes a
// [ToolExternal] invocation carrying the raw arguments; anything else is
// the harness's to decode.
func DecodeCall(h Harness, external []ExternalTool, call ToolCall) Invocation {
	for _, t := range external {
		if t.Name == call.Name {
			inv := Invocation{Tool: ToolExternal, External: t.Name, Arguments: call.Arguments}
			if t.Source == SourceAgents {
				inv.Agent, inv.Error = decodeAgentArgs(call.Arguments)
			}
			return inv
		}
	}
	return h.Decode(call)
}
