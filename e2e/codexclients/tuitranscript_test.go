package codexclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
)

// schema171 checks both sides of a Codex 0.171 session: what the TUI sent
// and what the server answered, against the 0.171 bundle, or the
// 0.171 experimental bundle for a method only it has (the TUI declares
// experimentalApi, so it calls those). Unlike codexschema.Validator it
// covers client messages and every method's response, not only those of
// a known list.
type schema171 struct {
	stable, exp *bundle171
}

// bundle171 is one compiled bundle and what it defines.
type bundle171 struct {
	c       *jsonschema.Compiler
	defs    map[string]bool            // "X" and "v2/X"
	methods map[string]map[string]bool // union ("ClientRequest", ...) -> methods
	params  map[string]string          // client request method -> its params definition
	mu      sync.Mutex
	cache   map[string]*jsonschema.Schema
}

var (
	schema171Once sync.Once
	schema171Val  *schema171
	schema171Err  error
)

// loadSchema171 compiles the two bundles once per test binary.
func loadSchema171(t *testing.T) *schema171 {
	t.Helper()
	schema171Once.Do(func() {
		s := &schema171{}
		if s.stable, schema171Err = loadBundle171("0.171"); schema171Err != nil {
			return
		}
		s.exp, schema171Err = loadBundle171(codexschema.Experimental)
		schema171Val = s
	})
	if schema171Err != nil {
		t.Fatalf("loading the 0.171 schemas: %v", schema171Err)
	}
	return schema171Val
}

func loadBundle171(version string) (*bundle171, error) {
	raw, err := os.ReadFile(codexschema.File(version))
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", version, err)
	}
	var top struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	b := &bundle171{c: jsonschema.NewCompiler(), defs: map[string]bool{}, methods: map[string]map[string]bool{},
		params: map[string]string{}, cache: map[string]*jsonschema.Schema{}}
	for name, body := range top.Definitions {
		b.defs[name] = true
		if name == "v2" {
			var sub map[string]json.RawMessage
			_ = json.Unmarshal(body, &sub)
			for s := range sub {
				b.defs["v2/"+s] = true
			}
		}
	}
	for _, union := range []string{"ClientRequest", "ClientNotification", "ServerRequest", "ServerNotification"} {
		var u struct {
			OneOf []struct {
				Properties struct {
					Method struct {
						Enum []string `json:"enum"`
					} `json:"method"`
					Params struct {
						Ref string `json:"$ref"`
					} `json:"params"`
				} `json:"properties"`
			} `json:"oneOf"`
		}
		_ = json.Unmarshal(top.Definitions[union], &u)
		b.methods[union] = map[string]bool{}
		for _, o := range u.OneOf {
			if len(o.Properties.Method.Enum) == 0 {
				continue
			}
			m := o.Properties.Method.Enum[0]
			b.methods[union][m] = true
			if union == "ClientRequest" {
				b.params[m] = strings.TrimPrefix(o.Properties.Params.Ref, "#/definitions/")
			}
		}
	}
	const base = "file:///codex_app_server_protocol.schemas.json"
	if err := b.c.AddResource(base, doc); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *bundle171) check(def string, value []byte) error {
	b.mu.Lock()
	s := b.cache[def]
	if s == nil {
		var err error
		s, err = b.c.Compile("file:///codex_app_server_protocol.schemas.json#/definitions/" + def)
		if err != nil {
			b.mu.Unlock()
			return fmt.Errorf("compiling %s: %w", def, err)
		}
		b.cache[def] = s
	}
	b.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// responseOverrides name the responses whose definition does not follow
// from the request's params (no params, or a shared response type).
var responseOverrides = map[string]string{
	"config/batchWrite":       "v2/ConfigWriteResponse",
	"config/value/write":      "v2/ConfigWriteResponse",
	"account/logout":          "v2/LogoutAccountResponse",
	"account/read":            "v2/GetAccountResponse",
	"account/rateLimits/read": "v2/GetAccountRateLimitsResponse",
	"configRequirements/read": "v2/ConfigRequirementsReadResponse",
}

// responseDef is the definition of method's result: XParams -> XResponse.
func (s *schema171) responseDef(method string) string {
	if d, ok := responseOverrides[method]; ok {
		return d
	}
	for _, b := range []*bundle171{s.stable, s.exp} {
		if p := b.params[method]; strings.HasSuffix(p, "Params") {
			if d := strings.TrimSuffix(p, "Params") + "Response"; b.defs[d] {
				return d
			}
		}
	}
	return ""
}

// checkUnion validates a request or notification of method against the
// stable bundle when it has the method, else the experimental one.
func (s *schema171) checkUnion(union, method string, msg []byte) error {
	b := s.stable
	if !b.methods[union][method] {
		b = s.exp
		if !b.methods[union][method] {
			return fmt.Errorf("%s %q is in neither 0.171 bundle", union, method)
		}
	}
	return b.check(union, msg)
}

// checkDef validates value against def in the stable bundle when it has
// def, else the experimental one.
func (s *schema171) checkDef(def string, value []byte) error {
	for _, b := range []*bundle171{s.stable, s.exp} {
		if b.defs[def] {
			return b.check(def, value)
		}
	}
	return fmt.Errorf("no 0.171 bundle defines %s", def)
}

// tuiTranscript is a recorded session, summed up.
type tuiTranscript struct {
	// Results and Errors count the server's answers per client method.
	Results, Errors map[string]int
	// ErrorText holds each error answer, "method: code message".
	ErrorText []string
}

// checkTUITranscript validates every message of a --transcript file
// against the 0.171 schemas and sums up the answers.
func checkTUITranscript(t *testing.T, path string) tuiTranscript {
	t.Helper()
	msgs := readTranscript(t, path)
	if len(msgs) == 0 {
		t.Fatal("the transcript is empty")
	}
	sum, problems := validateTUITranscript(loadSchema171(t), msgs)
	for _, p := range problems {
		t.Error(p)
	}
	return sum
}

// validateTUITranscript validates each message, reporting each kind of
// mismatch once.
func validateTUITranscript(s *schema171, msgs []transcriptMessage) (tuiTranscript, []string) {
	sum := tuiTranscript{Results: map[string]int{}, Errors: map[string]int{}}
	clientReqs := map[string]string{}
	reported := map[string]bool{}
	var problems []string
	fail := func(kind string, err error, msg []byte) {
		if !reported[kind] {
			reported[kind] = true
			problems = append(problems, fmt.Sprintf("%s does not validate against 0.171: %v\n%.2000s", kind, err, msg))
		}
	}
	for _, m := range msgs {
		var rpc struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(m.Msg, &rpc); err != nil {
			fail("a message that is not JSON-RPC", err, m.Msg)
			continue
		}
		key := fmt.Sprintf("%d/%s", m.Conn, normalID(rpc.ID))
		hasID := normalID(rpc.ID) != ""
		switch {
		case m.Dir == "in" && rpc.Method != "" && hasID:
			clientReqs[key] = rpc.Method
			if err := s.checkUnion("ClientRequest", rpc.Method, m.Msg); err != nil {
				fail("client request "+rpc.Method, err, m.Msg)
			}
		case m.Dir == "in" && rpc.Method != "":
			if err := s.checkUnion("ClientNotification", rpc.Method, m.Msg); err != nil {
				fail("client notification "+rpc.Method, err, m.Msg)
			}
		case m.Dir == "in":
			if err := s.checkDef("JSONRPCResponse", m.Msg); rpc.Error == nil && err != nil {
				fail("client answer", err, m.Msg)
			}
		case rpc.Method != "" && hasID:
			if err := s.checkUnion("ServerRequest", rpc.Method, m.Msg); err != nil {
				fail("server request "+rpc.Method, err, m.Msg)
			}
		case rpc.Method != "":
			if err := s.checkUnion("ServerNotification", rpc.Method, m.Msg); err != nil {
				fail("server notification "+rpc.Method, err, m.Msg)
			}
		case rpc.Error != nil:
			method := clientReqs[key]
			sum.Errors[method]++
			sum.ErrorText = append(sum.ErrorText, fmt.Sprintf("%s: %d %s", method, rpc.Error.Code, rpc.Error.Message))
			if err := s.checkDef("JSONRPCError", m.Msg); err != nil {
				fail("server error for "+method, err, m.Msg)
			}
		default:
			method := clientReqs[key]
			sum.Results[method]++
			def := s.responseDef(method)
			if def == "" {
				fail("server result "+method, fmt.Errorf("no response definition for %q", method), m.Msg)
				continue
			}
			if err := s.checkDef(def, rpc.Result); err != nil {
				fail("server result "+method, err, m.Msg)
			}
		}
	}
	return sum, problems
}
