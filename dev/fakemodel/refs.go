package fakemodel

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// A step's text and tool-call arguments may refer to the tool results the
// request carries (after its last user message; Responses requests only),
// so a script can do what a model does with a result it has read, such as
// waiting for the agent whose id a spawn returned:
//
//	{{output.N}}        the text of result N (0 is the first)
//	{{output.N.FIELD}}  the string (or the JSON) of FIELD of result N, a
//	                    JSON object
//
// In arguments the value is inserted JSON-escaped, so the reference goes
// inside a JSON string. A reference to a result or field the request lacks
// is left as it is, which the test then sees.
var outputRef = regexp.MustCompile(`\{\{output\.(\d+)(?:\.([A-Za-z0-9_]+))?\}\}`)

// expand replaces the output references of s; inJSON escapes the values
// for a JSON string.
func (c conversation) expand(s string, inJSON bool) string {
	if !strings.Contains(s, "{{output.") {
		return s
	}
	return outputRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := outputRef.FindStringSubmatch(ref)
		n, err := strconv.Atoi(m[1])
		if err != nil || n >= len(c.outputs) {
			return ref
		}
		v := c.outputs[n]
		if m[2] != "" {
			var obj map[string]json.RawMessage
			raw, ok := json.RawMessage(nil), false
			if json.Unmarshal([]byte(v), &obj) == nil {
				raw, ok = obj[m[2]]
			}
			if !ok {
				return ref
			}
			v = string(raw)
			var str string
			if json.Unmarshal(raw, &str) == nil {
				v = str
			}
		}
		if inJSON {
			b, _ := json.Marshal(v)
			return string(b[1 : len(b)-1])
		}
		return v
	})
}
