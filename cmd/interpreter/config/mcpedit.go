package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// MCPAdd is a server as `interpreter mcp add` defines it: a stdio
// command (Command, Env) or a streamable HTTP endpoint (URL,
// BearerTokenEnvVar).
type MCPAdd struct {
	Name              string
	Command           []string
	URL               string
	BearerTokenEnvVar string
	Env               []string // KEY=VALUE
	Required          bool
}

// Table is the server's [mcp_servers.NAME] table as config.toml text; an
// error says what in the definition is wrong.
func (m MCPAdd) Table() (string, error) {
	if !ValidMCPName(m.Name) {
		return "", fmt.Errorf("invalid MCP server name %q: use letters, digits, '_' and '-'", m.Name)
	}
	cmd := m.Command
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", m.Name)
	switch {
	case m.URL != "" && len(cmd) > 0:
		return "", fmt.Errorf("mcp add %s: give either --url or a command after --, not both", m.Name)
	case m.URL != "":
		if len(m.Env) > 0 {
			return "", fmt.Errorf("mcp add %s: --env is for stdio servers; a streamable HTTP server takes --bearer-token-env-var", m.Name)
		}
		fmt.Fprintf(&b, "url = %s\n", tomlString(m.URL))
		if m.BearerTokenEnvVar != "" {
			fmt.Fprintf(&b, "bearer_token_env_var = %s\n", tomlString(m.BearerTokenEnvVar))
		}
	case len(cmd) > 0:
		if m.BearerTokenEnvVar != "" {
			return "", fmt.Errorf("mcp add %s: --bearer-token-env-var is for streamable HTTP servers (--url)", m.Name)
		}
		fmt.Fprintf(&b, "command = %s\n", tomlString(cmd[0]))
		if len(cmd) > 1 {
			args := make([]string, len(cmd)-1)
			for i, a := range cmd[1:] {
				args[i] = tomlString(a)
			}
			fmt.Fprintf(&b, "args = [%s]\n", strings.Join(args, ", "))
		}
		if len(m.Env) > 0 {
			var kv []string
			for _, e := range m.Env {
				k, v, ok := strings.Cut(e, "=")
				if !ok || k == "" {
					return "", fmt.Errorf("mcp add %s: --env %q: want KEY=VALUE", m.Name, e)
				}
				kv = append(kv, tomlString(k)+" = "+tomlString(v))
			}
			fmt.Fprintf(&b, "env = { %s }\n", strings.Join(kv, ", "))
		}
	default:
		return "", fmt.Errorf("mcp add %s: give the command after -- (mcp add %s -- npx -y some-server) or --url URL", m.Name, m.Name)
	}
	if m.Required {
		b.WriteString("required = true\n")
	}
	return b.String(), nil
}

// AddMCPTable puts a server's table at the end of a config file's text,
// in place of the server's table there was (see [RemoveMCPTable]).
func AddMCPTable(text, name, table string) (string, error) {
	text, _, err := RemoveMCPTable(text, name)
	if err != nil {
		return "", err
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + table, nil
}

// Path is the configuration file of a home directory (empty: the
// default home).
func Path(home string) string {
	if home == "" {
		home = DefaultHome()
	} else {
		home = ExpandHome(home)
	}
	return filepath.Join(home, FileName)
}

// ReadText is a configuration file's text; a file that does not exist
// is empty.
func ReadText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %v", path, err)
	}
	return string(b), nil
}

// WriteText writes a configuration file (through a temporary file), then
// calls check (loading it again); when check fails, the old file is put
// back.
func WriteText(path, text string, check func() error) error {
	old, readErr := os.ReadFile(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := check(); err != nil {
		if readErr == nil {
			_ = os.WriteFile(path, old, 0o600)
		} else {
			_ = os.Remove(path)
		}
		return fmt.Errorf("%s was not changed: the result would not load: %v", path, err)
	}
	return nil
}

var tableHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)

// RemoveMCPTable cuts the [mcp_servers.NAME] table and its sub-tables
// ([mcp_servers.NAME.env], ...) out of a config file's text; everything
// else (comments, other tables, key order) stays as it was. A server
// defined another way (inline in [mcp_servers], or by dotted keys) is an
// error: its lines are not cut by guesswork.
func RemoveMCPTable(text, name string) (string, bool, error) {
	lines := strings.SplitAfter(text, "\n")
	var out []string
	found, skipping := false, false
	for _, line := range lines {
		if m := tableHeader.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			skipping = isServerTable(m[1], name)
			found = found || skipping
		}
		if !skipping {
			out = append(out, line)
		}
	}
	if !found {
		// Is it defined some other way?
		cfgTree := map[string]any{}
		if err := toml.Unmarshal([]byte(text), &cfgTree); err == nil {
			if ms, ok := cfgTree["mcp_servers"].(map[string]any); ok {
				if _, ok := ms[name]; ok {
					return text, false, fmt.Errorf("mcp_servers.%s is not written as a [mcp_servers.%s] table; edit config.toml by hand", name, name)
				}
			}
		}
		return text, false, nil
	}
	res := strings.Join(out, "")
	for strings.HasSuffix(res, "\n\n\n") {
		res = strings.TrimSuffix(res, "\n")
	}
	return res, true, nil
}

// isServerTable reports whether a table header's key is mcp_servers.NAME
// or below it.
func isServerTable(key, name string) bool {
	parts := splitHeaderKey(key)
	return len(parts) >= 2 && parts[0] == "mcp_servers" && parts[1] == name
}

// splitHeaderKey splits a dotted TOML key (bare or quoted parts).
func splitHeaderKey(key string) []string {
	var parts []string
	for key = strings.TrimSpace(key); key != ""; {
		var part string
		switch key[0] {
		case '"':
			end := strings.Index(key[1:], `"`)
			if end < 0 {
				return append(parts, key)
			}
			part, key = key[1:1+end], key[2+end:]
		case '\'':
			end := strings.Index(key[1:], `'`)
			if end < 0 {
				return append(parts, key)
			}
			part, key = key[1:1+end], key[2+end:]
		default:
			end := strings.IndexByte(key, '.')
			if end < 0 {
				end = len(key)
			}
			part, key = strings.TrimSpace(key[:end]), key[end:]
		}
		parts = append(parts, part)
		key = strings.TrimSpace(key)
		key = strings.TrimPrefix(key, ".")
		key = strings.TrimSpace(key)
	}
	return parts
}
