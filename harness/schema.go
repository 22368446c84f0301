package harness

import (
	"bytes"
	"encoding/json"
)

// Prop is one property of an object schema.
type Prop struct {
	Name   string
	Schema map[string]any
}

// Props are the properties of an object schema in the order they were
// given. They marshal as a JSON object with the keys in that order, so a
// tool's parameters reach the model in the order the emulated CLI sends
// them (a Go map would sort them).
type Props []Prop

// MarshalJSON implements json.Marshaler.
func (ps Props) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		v, err := marshalNoEscape(p.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Object is an object schema with ordered properties; required lists the
// required property names.
func Object(required []string, props ...Prop) map[string]any {
	s := map[string]any{"type": "object", "properties": Props(props)}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Strict is Object with additionalProperties false.
func Strict(required []string, props ...Prop) map[string]any {
	s := Object(required, props...)
	s["additionalProperties"] = false
	return s
}

// P is shorthand for a property.
func P(name string, schema map[string]any) Prop { return Prop{Name: name, Schema: schema} }

// Str is a string schema.
func Str(desc string) map[string]any { return typed("string", desc) }

// Int is an integer schema.
func Int(desc string) map[string]any { return typed("integer", desc) }

// Num is a number schema.
func Num(desc string) map[string]any { return typed("number", desc) }

// Bool is a boolean schema.
func Bool(desc string) map[string]any { return typed("boolean", desc) }

// Enum is a string schema limited to values.
func Enum(desc string, values ...string) map[string]any {
	s := Str(desc)
	s["enum"] = values
	return s
}

// Arr is an array schema of items.
func Arr(desc string, items map[string]any) map[string]any {
	s := typed("array", desc)
	s["items"] = items
	return s
}

// With returns s with extra keywords (default, minimum, ...) set.
func With(s map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i].(string)] = kv[i+1]
	}
	return s
}

func typed(t, desc string) map[string]any {
	s := map[string]any{"type": t}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// SchemaJSON renders a parameters schema as the provider receives it.
func SchemaJSON(s map[string]any) json.RawMessage {
	b, err := marshalNoEscape(s)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}
