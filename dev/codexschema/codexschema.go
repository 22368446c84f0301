// Package codexschema checks app-server messages against the reference JSON
// Schemas: the bundles that `codex app-server generate-json-schema` of
// Codex 0.140 and of Codex 0.171 write, kept in testdata/schema. A
// message must satisfy both, so clients of either release read it. Tests
// of the server and the end-to-end tests of the binary use it; the binary
// does not.
package codexschema

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

const base = "file:///codex_app_server_protocol.schemas.json"

// Versions are the Codex releases whose bundles a message must satisfy,
// oldest first: each lives in testdata/schema/VERSION.
var Versions = []string{"0.140", "0.171"}

// File is the path of one version's bundle.
func File(version string) string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "testdata", "schema", version, "codex_app_server_protocol.schemas.json")
}

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
	"thread/turns/list":  "v2/ThreadTurnsListResponse",
	"thread/items/list":  "v2/ThreadItemsListResponse",

	"thread/goal/set":      "v2/ThreadGoalSetResponse",
	"thread/goal/clear":    "v2/ThreadGoalClearResponse",
	"thread/compact/start": "v2/ThreadCompactStartResponse",
	"thread/goal/get":      "v2/ThreadGoalGetResponse",
	"review/start":         "v2/ReviewStartResponse",

	"account/read":            "v2/GetAccountResponse",
	"configRequirements/read": "v2/ConfigRequirementsReadResponse",
	"hooks/list":              "v2/HooksListResponse",
	"skills/list":             "v2/SkillsListResponse",
	"plugin/installed":        "v2/PluginInstalledResponse",
	"mcpServerStatus/list":    "v2/ListMcpServerStatusResponse",

	"config/batchWrite":          "v2/ConfigWriteResponse",
	"config/value/write":         "v2/ConfigWriteResponse",
	"skills/config/write":        "v2/SkillsConfigWriteResponse",
	"permissionProfile/list":     "v2/PermissionProfileListResponse",
	"plugin/list":                "v2/PluginListResponse",
	"externalAgentConfig/detect": "v2/ExternalAgentConfigDetectResponse",
	"account/logout":             "v2/LogoutAccountResponse",

	"experimentalFeature/list": "v2/ExperimentalFeatureListResponse",

	// Experimental: only the experimental bundle defines these.
	"collaborationMode/list":                    "v2/CollaborationModeListResponse",
	"thread/settings/update":                    "v2/ThreadSettingsUpdateResponse",
	"thread/backgroundTerminals/list":           "v2/ThreadBackgroundTerminalsListResponse",
	"account/bedrock/checkGovCloudRequirements": "v2/BedrockCheckGovCloudRequirementsResponse",
	"thread/delete":                             "v2/ThreadDeleteResponse",
	"thread/inject_items":                       "v2/ThreadInjectItemsResponse",
	"thread/search":                             "v2/ThreadSearchResponse",
	"thread/backgroundTerminals/clean":          "v2/ThreadBackgroundTerminalsCleanResponse",
	"thread/backgroundTerminals/terminate":      "v2/ThreadBackgroundTerminalsTerminateResponse",
}

// Experimental is the bundle of 0.171 with --experimental, in
// testdata/schema/Experimental: consulted only for a definition no
// version's stable bundle has (the responses of experimental methods).
const Experimental = "0.171-experimental"

// bundle is one version's compiled schema.
type bundle struct {
	version string
	defs    map[string]bool // top-level and v2/ definition names
	c       *jsonschema.Compiler
	mu      sync.Mutex
	cache   map[string]*jsonschema.Schema
}

// Validator validates messages a server sends against every version's
// bundle.
type Validator struct {
	bundles      []*bundle
	experimental *bundle
}

// Load reads every version's bundle.
func Load() (*Validator, error) {
	v := &Validator{}
	for _, ver := range Versions {
		b, err := loadBundle(ver)
		if err != nil {
			return nil, err
		}
		v.bundles = append(v.bundles, b)
	}
	b, err := loadBundle(Experimental)
	if err != nil {
		return nil, err
	}
	v.experimental = b
	return v, nil
}

func loadBundle(version string) (*bundle, error) {
	raw, err := os.ReadFile(File(version))
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", File(version), err)
	}
	var names struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", File(version), err)
	}
	defs := map[string]bool{}
	for k, body := range names.Definitions {
		defs[k] = true
		if k != "v2" {
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(body, &sub) == nil {
			for s := range sub {
				defs["v2/"+s] = true
			}
		}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(base, doc); err != nil {
		return nil, err
	}
	return &bundle{version: version, defs: defs, c: c, cache: map[string]*jsonschema.Schema{}}, nil
}

func (b *bundle) schema(def string) (*jsonschema.Schema, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.cache[def]; s != nil {
		return s, nil
	}
	s, err := b.c.Compile(base + "#/definitions/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", def, err)
	}
	b.cache[def] = s
	return s, nil
}

func (b *bundle) check(def string, value []byte) error {
	s, err := b.schema(def)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("codex %s %s: %w", b.version, def, err)
	}
	return nil
}

// Check validates a JSON value against a definition
// ("ServerNotification", "v2/ThreadStartResponse", ...) in every bundle
// that has it; at least one must. A definition only a newer version has
// (the response of a method added since) is checked against that one:
// an older client never calls the method.
func (v *Validator) Check(def string, value []byte) error {
	found := false
	for _, b := range v.bundles {
		if !b.defs[def] {
			continue
		}
		found = true
		if err := b.check(def, value); err != nil {
			return err
		}
	}
	if !found && v.experimental.defs[def] {
		return v.experimental.check(def, value)
	}
	if !found {
		return fmt.Errorf("no version's schema defines %s", def)
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
