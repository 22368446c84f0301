// Package schematest checks app-server messages against the reference JSON
// Schema: the bundle that `codex app-server generate-json-schema` (Codex
// 0.140) writes, kept in ../testdata/schema. Tests of the server and the
// end-to-end tests of the binary use it; the binary does not.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// File is the schema bundle's path.
func File() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "testdata", "schema", "codex_app_server_protocol.schemas.json")
}

const base = "file:///codex_app_server_protocol.schemas.json"

// responses names each method's response definition in the bundle.
var responses = map[string]string{
	"initialize":     "InitializeResponse",
	"thread/start":   "v2/ThreadStartResponse",
	"thread/resume":  "v2/ThreadResumeResponse",
	"thread/fork":    "v2/ThreadForkResponse",
	"thread/read":    "v2/ThreadReadResponse",
	"thread/list":    "v2/ThreadListResponse",
	"turn/start":     "v2/TurnStartResponse",
	"turn/steer":     "v2/TurnSteerResponse",
	"turn/interrupt": "v2/TurnInterruptResponse",
	"model/list":     "v2/ModelListResponse",
	"config/read":    "v2/ConfigReadResponse",
	"command/exec":   "v2/CommandExecResponse",

	"command/exec/write":     "v2/CommandExecWriteResponse",
	"command/exec/resize":    "v2/CommandExecResizeResponse",
	"command/exec/terminate": "v2/CommandExecTerminateResponse",

	"thread/name/set":    "v2/ThreadSetNameResponse",
	"thread/archive":     "v2/ThreadArchiveResponse",
	"thread/unarchive":   "v2/ThreadUnarchiveResponse",
	"thread/unsubscribe": "v2/ThreadUnsubscribeResponse",
	"thread/loaded/list": "v2/ThreadLoadedListResponse",

	"account/read":            "v2/GetAccountResponse",
	"configRequirements/read": "v2/ConfigRequirementsReadResponse",
	"hooks/list":              "v2/HooksListResponse",
	"skills/list":             "v2/SkillsListResponse",
	"plugin/installed":        "v2/PluginInstalledResponse",
	"mcpServerStatus/list":    "v2/ListMcpServerStatusResponse",

	"experimentalFeature/list": "v2/ExperimentalFeatureListResponse",
}

// Validator validates messages a server sends.
type Validator struct {
	c     *jsonschema.Compiler
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
}

// Load reads the bundle.
func Load() (*Validator, error) {
	b, err := os.ReadFile(File())
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", File(), err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(base, doc); err != nil {
		return nil, err
	}
	return &Validator{c: c, cache: map[string]*jsonschema.Schema{}}, nil
}

func (v *Validator) schema(def string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.cache[def]; s != nil {
		return s, nil
	}
	s, err := v.c.Compile(base + "#/definitions/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", def, err)
	}
	v.cache[def] = s
	return s, nil
}

// Check validates a JSON value against a definition of the bundle
// ("ServerNotification", "v2/ThreadStartResponse", ...).
func (v *Validator) Check(def string, value []byte) error {
	s, err := v.schema(def)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s: %w", def, err)
	}
	return nil
}

// HasResponse tells whether the bundle defines the response of method.
func HasResponse(method string) bool { _, ok := responses[method]; return ok }

// Line validates one line a server wrote. methodOf names the method of the
// client request a response answers (by its id, as JSON).
//
// One deliberate exception: an error answering a line that had no usable
// id (not JSON at all, or over the size limit) carries id null, as
// JSON-RPC 2.0 prescribes; the reference server sends nothing then, so its
// schema has no null id. Such an error's error object is still checked.
func (v *Validator) Line(line []byte, methodOf func(id string) string) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != nil && hasID:
		return v.Check("ServerRequest", line)
	case m.Method != nil:
		return v.Check("ServerNotification", line)
	case m.Error != nil && !hasID:
		return v.Check("JSONRPCErrorError", m.Error)
	case m.Error != nil:
		return v.Check("JSONRPCError", line)
	case m.Result != nil:
		if err := v.Check("JSONRPCResponse", line); err != nil {
			return err
		}
		method := methodOf(string(m.ID))
		def, ok := responses[method]
		if !ok {
			return fmt.Errorf("no response definition known for method %q (id %s)", method, m.ID)
		}
		return v.Check(def, m.Result)
	}
	return fmt.Errorf("neither a request, a notification nor a response: %s", line)
}
