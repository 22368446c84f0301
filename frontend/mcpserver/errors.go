package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK answers some bad requests with error code 0 and with messages
// made for Go programmers (type names, the params as it saw them, our own
// _meta key included). clientError rewrites those answers in the client's
// terms, with a JSON-RPC code.

// openRequest is a client's request not answered yet.
type openRequest struct {
	method string
	params json.RawMessage
}

// inClientTerms is r, its error or tool error rewritten where the SDK's
// was not in the client's terms.
func inClientTerms(req openRequest, r *jsonrpc.Response) *jsonrpc.Response {
	if r.Error != nil {
		if ce := clientError(req, r.Error); ce != nil {
			return &jsonrpc.Response{ID: r.ID, Error: ce, Extra: r.Extra}
		}
		return r
	}
	if req.method != "tools/call" || !toolArgumentsUndecoded(r.Result) {
		return r
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(r.Result, &res) != nil {
		return r
	}
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(req.params, &p)
	text := `validating "arguments": arguments must be an object, not ` + kindOf(p.Arguments)
	res["content"], _ = json.Marshal([]textContent{{Type: "text", Text: text}})
	out, err := json.Marshal(res)
	if err != nil {
		return r
	}
	return &jsonrpc.Response{ID: r.ID, Result: out, Extra: r.Extra}
}

// clientError returns the error to send instead of err, an error answer
// to req (nil: send err as it is).
func clientError(req openRequest, err error) *jsonrpc.Error {
	var code int64
	var data json.RawMessage
	if we := (*jsonrpc.Error)(nil); errors.As(err, &we) {
		code, data = we.Code, we.Data
	}
	var decode *json.UnmarshalTypeError
	switch {
	case refusedBeforeInitialize(err):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"Invalid Request: %s is not allowed before the session is initialized; send initialize first, then notifications/initialized", orUnknown(req.method))}
	case errors.As(err, &decode):
		// The SDK decodes params with segmentio/encoding/json, whose
		// UnmarshalTypeError is encoding/json's, wrapped with %w.
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"Invalid params of %s: %s", orUnknown(req.method), paramsProblem(req.params, decode))}
	case code == 0:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error(), Data: data}
	}
	return nil
}

// The two SDK answers below are recognised by their text: the SDK gives
// nothing typed for them. Its refusal of a request before initialize is
// a bare fmt.Errorf (go-sdk v1.8.0 mcp/server.go), and a tool's
// arguments that do not decode reach this connection only as the text of
// an error result, already written as JSON. Keep the texts in step with
// the go-sdk version in go.mod (TestBadRequestsAreAnsweredInClientTerms).

// refusedBeforeInitialize reports the SDK's refusal of a request sent
// before the session was initialized.
func refusedBeforeInitialize(err error) bool {
	return strings.Contains(err.Error(), "is invalid during session initialization")
}

// toolArgumentsUndecoded reports a tools/call result that is the SDK's
// error for arguments that did not decode into the tool's input type
// (encoding/json's UnmarshalTypeError text).
func toolArgumentsUndecoded(result json.RawMessage) bool {
	text := string(result)
	return strings.Contains(text, "into Go value of type") || strings.Contains(text, "into Go struct field")
}

func orUnknown(method string) string {
	if method == "" {
		return "the request"
	}
	return method
}

// paramsProblem says what is wrong with params, given the decoder's
// error: its Field is the dotted path of JSON keys to the value.
func paramsProblem(params json.RawMessage, decode *json.UnmarshalTypeError) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return "params must be an object, not " + kindOf(params)
	}
	if decode.Field == "" || decode.Type == nil {
		return "the params do not have the expected shape"
	}
	path := strings.Split(decode.Field, ".")
	return fmt.Sprintf("%s must be %s, not %s", decode.Field, goKind(decode.Type.String()), kindOf(lookup(obj, path)))
}

// lookup reads a dotted path of object members.
func lookup(obj map[string]json.RawMessage, path []string) json.RawMessage {
	v := obj[path[0]]
	for _, p := range path[1:] {
		var next map[string]json.RawMessage
		if json.Unmarshal(v, &next) != nil {
			return v
		}
		v = next[p]
	}
	return v
}

// kindOf names a JSON value's type as a client would.
func kindOf(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "missing"
	case s == "null":
		return "null"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == '"':
		return "a string"
	case s == "true" || s == "false":
		return "a boolean"
	}
	return "a number"
}

// goKind names a Go type as the JSON it decodes.
func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), strings.Contains(t, "."):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	}
	return "a number"
}

// describeBadMessage says what makes a line that is JSON no JSON-RPC
// message, for the parse error the SDK's decoder gave (its fallback).
func describeBadMessage(line []byte, err error) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return "Invalid Request: a message must be a JSON object, not " + kindOf(line)
	}
	if v := obj["jsonrpc"]; string(v) != `"2.0"` {
		return fmt.Sprintf(`Invalid Request: "jsonrpc" must be "2.0" (it is %s)`, kindOrValue(v))
	}
	if v, ok := obj["id"]; ok {
		if k := kindOf(v); k != "a string" && k != "a number" && k != "null" {
			return fmt.Sprintf(`Invalid Request: "id" must be a string or a number, not %s`, k)
		}
	}
	if v, ok := obj["method"]; ok && kindOf(v) != "a string" {
		return fmt.Sprintf(`Invalid Request: "method" must be a string, not %s`, kindOf(v))
	}
	return "Invalid Request: " + err.Error()
}

func kindOrValue(v json.RawMessage) string {
	if kindOf(v) == "a string" {
		return string(v)
	}
	return kindOf(v)
}
