package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxOutput bounds what the model reads of one tool result.
const DefaultMaxOutput = 64 << 10

// Redacted replaces a secret value in tool output.
const Redacted = "[REDACTED]"

// minSecretLen: env values shorter than this are not redacted (a value
// such as "1" or "debug" would shred the output and hides nothing).
// Bearer tokens are redacted whatever their length.
const minSecretLen = 6

// Render turns a tool result into the text the model reads: text content
// as is, other content as a one-line note, structured content as JSON
// when there is no other content.
func Render(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s %s]", c.URI, c.Name))
		case *mcp.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
			default:
				parts = append(parts, fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// Redactor replaces secret values in text.
type Redactor struct {
	values []string
}

// NewRedactor redacts the given bearer tokens (any length) and env values
// (at least six bytes long), also in their JSON-escaped form.
func NewRedactor(tokens, envValues []string) *Redactor {
	r := &Redactor{}
	add := func(v string) {
		if v == "" {
			return
		}
		r.values = append(r.values, v)
		if b, err := json.Marshal(v); err == nil {
			if q := string(b[1 : len(b)-1]); q != v {
				r.values = append(r.values, q)
			}
		}
	}
	for _, t := range tokens {
		add(t)
	}
	for _, v := range envValues {
		if len(v) >= minSecretLen {
			add(v)
		}
	}
	return r
}

// Redact replaces every secret value in s.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.values {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	return s
}

// Truncate keeps at most max bytes of s (cut at a character boundary) and
// says what was cut, naming the server and tool.
func Truncate(s string, max int, server, tool string) string {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output of mcp server %q tool %q truncated: %d bytes, the first %d shown]", server, tool, len(s), cut)
}
