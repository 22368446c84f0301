package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ParseOverride parses one -c argument of the form key=value.
//
// The key is a dotted TOML key (model_providers.local.base_url; quoted
// parts such as mcp_servers."my.server".command are allowed) and is
// returned in canonical dotted form. The value is parsed as a TOML value
// (42, true, [1, 2], {a = 1}, "quoted"); when it is not valid TOML it is
// taken as a plain string, with surrounding blanks and quote characters
// removed, so model=o3 and model="o3" mean the same.
func ParseOverride(s string) (key string, value any, err error) {
	rawKey, rawValue, ok := strings.Cut(s, "=")
	if !ok {
		return "", nil, fmt.Errorf("invalid override %q: want key=value", s)
	}
	parts, err := splitKey(rawKey)
	if err != nil {
		return "", nil, fmt.Errorf("invalid override %q: %w", s, err)
	}
	return joinKey(parts), parseValue(rawValue), nil
}

// parseValue reads s as a TOML value, falling back to a plain string.
func parseValue(s string) any {
	var doc map[string]any
	if err := toml.Unmarshal([]byte("v = "+s), &doc); err == nil && len(doc) == 1 {
		if v, ok := doc["v"]; ok {
			return v
		}
	}
	return strings.Trim(strings.TrimSpace(s), `"'`)
}

// splitKey splits a dotted TOML key into its parts, following TOML key
// syntax (bare, "basic" and 'literal' parts).
func splitKey(key string) ([]string, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, fmt.Errorf("empty key")
	}
	if strings.ContainsAny(key, "\r\n") {
		return nil, fmt.Errorf("invalid key %q", key)
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte(key+" = 0"), &doc); err != nil {
		return nil, fmt.Errorf("invalid key %q", key)
	}
	var parts []string
	var cur any = doc
	for {
		m, ok := cur.(map[string]any)
		if !ok {
			break
		}
		if len(m) != 1 {
			return nil, fmt.Errorf("invalid key %q", key)
		}
		for k, v := range m {
			parts = append(parts, k)
			cur = v
		}
	}
	if cur != int64(0) {
		return nil, fmt.Errorf("invalid key %q", key)
	}
	return parts, nil
}

// joinKey renders key parts as a dotted key, quoting parts that are not
// bare keys.
func joinKey(parts []string) string {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = quoteKeyPart(p)
	}
	return strings.Join(quoted, ".")
}

func quoteKeyPart(p string) string {
	if p == "" {
		return `""`
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(p)
		}
	}
	return p
}

// normalizeJSON converts a JSON-decoded value into the value TOML would
// produce: integral numbers become int64, other numbers float64, nested
// objects and arrays are converted recursively and nulls are dropped.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case float64:
		return normalizeFloat(x)
	case float32:
		return normalizeFloat(float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return normalizeFloat(f)
		}
		return x.String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if n := normalizeJSON(e); n != nil {
				out[k] = n
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if n := normalizeJSON(e); n != nil {
				out = append(out, n)
			}
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return float64(rv.Uint())
	}
	return v
}

func normalizeFloat(f float64) any {
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f)
	}
	return f
}
