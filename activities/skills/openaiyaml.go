package skills

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxDependencies bounds the entries of one skill's dependencies.tools.
const MaxDependencies = 64

// Fields of a dependencies.tools entry, and the transport each belongs to
// ("" for both).
var entryFields = map[string]string{
	"type":                 "",
	"value":                "",
	"description":          "",
	"transport":            "",
	"enabled_tools":        "",
	"disabled_tools":       "",
	"command":              TransportStdio,
	"url":                  TransportHTTP,
	"protocol_version":     TransportHTTP,
	"bearer_token_env_var": TransportHTTP,
}

// Top-level sections of openai.yaml. interface and policy belong to other
// features (how a UI shows the skill, when it may be invoked) and are not
// read here.
var topFields = map[string]bool{"dependencies": true, "interface": true, "policy": true}

var (
	serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// SchemaError is a rejected openai.yaml: it names the file, the entry (its
// index and value) and the field.
type SchemaError struct {
	File string
	Line int
	// Index is the entry's position in dependencies.tools (-1 when the
	// error is outside an entry).
	Index int
	// Value is the entry's server name, when it has one.
	Value string
	// Field is the key at fault ("" when none is).
	Field string
	Msg   string
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Index >= 0 {
		fmt.Fprintf(&b, "dependencies.tools[%d]", e.Index)
		if e.Value != "" {
			fmt.Fprintf(&b, " (value %q)", e.Value)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ParseOpenAIYAML reads the MCP dependencies a skill's agents/openai.yaml
// declares under dependencies.tools. The schema is strict: an unknown
// field, a field of the other transport, a missing or wrong value, or more
// than [MaxDependencies] entries is a [*SchemaError] naming file, entry
// and field. Entries are `type: mcp`; `value` names the server;
// `transport` is `stdio` (with `command`, a string split on spaces or a
// list: program then arguments) or `streamable_http` (with `url`, and
// optionally `protocol_version` and `bearer_token_env_var`, the NAME of
// the variable holding the token); `enabled_tools` and `disabled_tools`
// filter the server's tools. The same server declared twice identically
// counts once.
func ParseOpenAIYAML(file string, data []byte) ([]MCPDependency, error) {
	fail := func(n *yaml.Node, index int, value, field, format string, args ...any) error {
		e := &SchemaError{File: file, Index: index, Value: value, Field: field, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			e.Line = n.Line
		}
		return e
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fail(nil, -1, "", "", "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, -1, "", "", "the file must be a mapping (dependencies: ...)")
	}
	var tools *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !topFields[k.Value] {
			return nil, fail(k, -1, "", k.Value, "unknown field (known: dependencies, interface, policy)")
		}
		if k.Value != "dependencies" || isNull(v) {
			continue
		}
		if v.Kind != yaml.MappingNode {
			return nil, fail(v, -1, "", "dependencies", "must be a mapping with a tools list")
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			dk, dv := v.Content[j], v.Content[j+1]
			if dk.Value != "tools" {
				return nil, fail(dk, -1, "", "dependencies."+dk.Value, "unknown field (known: dependencies.tools)")
			}
			tools = dv
		}
	}
	if tools == nil || isNull(tools) {
		return nil, nil
	}
	if tools.Kind != yaml.SequenceNode {
		return nil, fail(tools, -1, "", "dependencies.tools", "must be a list")
	}
	if len(tools.Content) > MaxDependencies {
		return nil, fail(tools, -1, "", "dependencies.tools", "declares %d dependencies; a skill may declare at most %d", len(tools.Content), MaxDependencies)
	}
	var deps []MCPDependency
	for i, entry := range tools.Content {
		d, err := parseEntry(entry, i, fail)
		if err != nil {
			return nil, err
		}
		dup := false
		for _, prev := range deps {
			if prev.Name != d.Name {
				continue
			}
			if diff := differs(prev, d); diff != "" {
				return nil, fail(entry, i, d.Name, "value", "server %q is declared twice with a different %s", d.Name, diff)
			}
			dup = true
		}
		if !dup {
			deps = append(deps, d)
		}
	}
	return deps, nil
}

type failFunc func(n *yaml.Node, index int, value, field, format string, args ...any) error

func parseEntry(entry *yaml.Node, i int, fail failFunc) (MCPDependency, error) {
	if entry.Kind != yaml.MappingNode {
		return MCPDependency{}, fail(entry, i, "", "", "an entry must be a mapping (type, value, transport, ...)")
	}
	// The value and transport first, so every later error can name them.
	fields := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	var order []string
	for j := 0; j+1 < len(entry.Content); j += 2 {
		k := entry.Content[j]
		if _, dup := fields[k.Value]; dup {
			return MCPDependency{}, fail(k, i, "", k.Value, "given twice")
		}
		fields[k.Value], keys[k.Value] = entry.Content[j+1], k
		order = append(order, k.Value)
	}
	var d MCPDependency
	if v := fields["value"]; v != nil && v.Kind == yaml.ScalarNode {
		d.Name = v.Value
	}
	if v := fields["transport"]; v != nil && v.Kind == yaml.ScalarNode {
		d.Transport = v.Value
	}
	for _, k := range order {
		want, known := entryFields[k]
		if !known {
			return d, fail(keys[k], i, d.Name, k, "unknown field (known: type, value, description, transport, command, url, protocol_version, bearer_token_env_var, enabled_tools, disabled_tools)")
		}
		if want != "" && (d.Transport == TransportStdio || d.Transport == TransportHTTP) && want != d.Transport {
			return d, fail(keys[k], i, d.Name, k, "belongs to transport %s, not %s", want, d.Transport)
		}
	}
	str := func(k string) (string, error) {
		v := fields[k]
		if v == nil || isNull(v) {
			return "", nil
		}
		if v.Kind != yaml.ScalarNode {
			return "", fail(v, i, d.Name, k, "must be a string")
		}
		return v.Value, nil
	}
	list := func(k string) ([]string, error) {
		v := fields[k]
		if v == nil || isNull(v) {
			return nil, nil
		}
		if v.Kind != yaml.SequenceNode {
			return nil, fail(v, i, d.Name, k, "must be a list of strings")
		}
		out := make([]string, 0, len(v.Content))
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || isNull(e) || e.Value == "" {
				return nil, fail(e, i, d.Name, k, "must be a list of non-empty strings")
			}
			out = append(out, e.Value)
		}
		return out, nil
	}
	typ, err := str("type")
	if err != nil {
		return d, err
	}
	switch {
	case fields["type"] == nil:
		return d, fail(entry, i, d.Name, "type", "missing (want type: mcp)")
	case typ != "mcp":
		return d, fail(fields["type"], i, d.Name, "type", "%q is not supported (want mcp)", typ)
	}
	if _, err := str("value"); err != nil {
		return d, err
	}
	switch {
	case d.Name == "":
		return d, fail(entry, i, "", "value", "missing: the MCP server's name")
	case !serverNameRE.MatchString(d.Name):
		return d, fail(fields["value"], i, d.Name, "value", "a server name may hold only letters, digits, '-' and '_'")
	}
	if d.Description, err = str("description"); err != nil {
		return d, err
	}
	if _, err := str("transport"); err != nil {
		return d, err
	}
	switch d.Transport {
	case TransportStdio:
		c := fields["command"]
		switch {
		case c == nil || isNull(c):
			return d, fail(entry, i, d.Name, "command", "missing: transport stdio needs the command that starts the server")
		case c.Kind == yaml.ScalarNode:
			argv := strings.Fields(c.Value)
			if len(argv) == 0 {
				return d, fail(c, i, d.Name, "command", "is empty")
			}
			d.Command, d.Args = argv[0], argv[1:]
		default:
			argv, err := list("command")
			if err != nil {
				return d, err
			}
			if len(argv) == 0 {
				return d, fail(c, i, d.Name, "command", "is empty")
			}
			d.Command, d.Args = argv[0], argv[1:]
		}
	case TransportHTTP:
		if d.URL, err = str("url"); err != nil {
			return d, err
		}
		if d.URL == "" {
			return d, fail(entry, i, d.Name, "url", "missing: transport streamable_http needs the server's URL")
		}
		u, perr := url.Parse(d.URL)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return d, fail(fields["url"], i, d.Name, "url", "%q is not an http(s) URL", d.URL)
		}
		if u.User != nil {
			return d, fail(fields["url"], i, d.Name, "url", "must not hold credentials (name a variable in bearer_token_env_var)")
		}
		if d.ProtocolVersion, err = str("protocol_version"); err != nil {
			return d, err
		}
		if d.BearerTokenEnvVar, err = str("bearer_token_env_var"); err != nil {
			return d, err
		}
		if d.BearerTokenEnvVar != "" && !envNameRE.MatchString(d.BearerTokenEnvVar) {
			// The value is not repeated: it may be a token put there by mistake.
			return d, fail(fields["bearer_token_env_var"], i, d.Name, "bearer_token_env_var",
				"must be the name of an environment variable (letters, digits, '_'), never the token itself")
		}
	case "":
		return d, fail(entry, i, d.Name, "transport", "missing (want stdio or streamable_http)")
	default:
		return d, fail(fields["transport"], i, d.Name, "transport", "%q is not supported (want stdio or streamable_http)", d.Transport)
	}
	if d.EnabledTools, err = list("enabled_tools"); err != nil {
		return d, err
	}
	if d.DisabledTools, err = list("disabled_tools"); err != nil {
		return d, err
	}
	return d, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}
