package protocol

import (
	"bytes"
	"encoding/json"
)

// tagged marshals v with a leading "type" key: the tag of one member of
// a tagged union. v must marshal as a JSON object.
func tagged(tag string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	t, err := json.Marshal(tag)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(t)
	if inner := bytes.TrimSpace(body[1 : len(body)-1]); len(inner) > 0 {
		b.WriteByte(',')
		b.Write(inner)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Null is a value the reference always sends as null here (a feature
// this server does not have: memory citations, git info, goals...).
type Null = *struct{}

// Arguments are a tool call's arguments as the model wrote them: JSON
// when they are valid JSON, else a string.
func Arguments(args string) any {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return args
}

// Nullable is s, or nil (JSON null) when it is empty.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
