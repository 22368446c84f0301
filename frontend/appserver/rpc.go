package appserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// JSON-RPC error codes, as the reference server uses them: nearly every
// client mistake is -32600, oversized input is -32602.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// rpcError is the error object of a JSON-RPC error response.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidRequest(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

func internalError(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInternal, Message: fmt.Sprintf(format, args...)}
}

// asRPCError turns any handler error into the error object sent: protocol
// errors keep their code, everything else is an internal error.
func asRPCError(err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	return internalError("%v", err)
}

// message is any line a client sends: a request (id and method), a
// notification (method only) or a response to a request of ours (id and
// result or error).
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *message) hasID() bool { return len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null")) }

// validID tells whether a request id is one the protocol allows: a string
// or an integer.
func validID(id json.RawMessage) bool {
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return true
	case json.Number:
		_, err := x.Int64()
		return err == nil
	}
	return false
}

// Outgoing messages. The jsonrpc field is left out, as the reference does.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
}

type errorResponse struct {
	Error *rpcError       `json:"error"`
	ID    json.RawMessage `json:"id"`
}

type notification struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// decodeParams decodes a request's params into dst. Keys the protocol does
// not name are ignored; a missing required key, or a value of the wrong
// type, is refused with a message that names the field.
func decodeParams(raw json.RawMessage, dst any, required ...string) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return invalidRequest("Invalid request: missing field `params`")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return invalidRequest("Invalid request: invalid type: %s, expected an object for `params`", jsonKind(raw))
	}
	for _, k := range required {
		v, ok := keys[k]
		if !ok {
			return invalidRequest("Invalid request: missing field `%s`", k)
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return invalidRequest("Invalid request: invalid type: null for field `%s`", k)
		}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalidRequest("Invalid request: invalid type: %s for field `%s`, expected %s", te.Value, te.Field, goKind(te.Type.Kind().String()))
		}
		return invalidRequest("Invalid request: %v", err)
	}
	return nil
}

// jsonKind names the kind of a JSON value for error messages.
func jsonKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "nothing"
	}
	switch s[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func goKind(k string) string {
	switch {
	case k == "string":
		return "a string"
	case k == "bool":
		return "a boolean"
	case strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "slice" || k == "array":
		return "an array"
	case k == "map" || k == "struct":
		return "an object"
	}
	return k
}
