package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Defaults for settings that have one.
const (
	DefaultModelProvider  = ProviderOpenAI
	DefaultApprovalPolicy = ApprovalOnRequest
	DefaultSandboxMode    = SandboxWorkspaceWrite
	DefaultMaxSteps       = 200
	DefaultTurnTimeout    = "1h"
	DefaultTemporalAddr   = "127.0.0.1:7233"
	DefaultNamespace      = "default"
	DefaultTaskQueue      = "interpreter"
)

// Options controls Load.
type Options struct {
	// Home is the interpreter home directory. Empty means DefaultHome().
	Home string
	// Overrides are raw -c values ("key=value"), see ParseOverride.
	Overrides []string
	// Strict makes keys that match no setting an error. Keys inside the
	// raw sections (otel, ...) are never checked; mcp_servers tables are.
	Strict bool
	// Profile selects a profile, taking precedence over the profile key.
	Profile string
	// Extra holds per-call overrides from front ends, applied last. Keys
	// may be dotted; values may come straight from encoding/json (integral
	// float64 becomes an integer, nulls are ignored).
	Extra map[string]any

	// text, when set, is read in place of config.toml (a write checks the
	// file it would write, see [WriteEdits]).
	text *string
}

// DefaultHome returns $INTERPRETER_HOME, or ~/.interpreter when it is unset.
func DefaultHome() string {
	if h := os.Getenv("INTERPRETER_HOME"); h != "" {
		return expandHome(h)
	}
	if u, err := os.UserHomeDir(); err == nil && u != "" {
		return filepath.Join(u, ".interpreter")
	}
	return ".interpreter"
}

// DefaultHostQueue derives this host's tool task queue from the main task
// queue and the host name: "<taskQueue>-host-<hostname>".
func DefaultHostQueue(taskQueue string) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	host = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, host)
	return taskQueue + "-host-" + host
}

// Load reads <home>/config.toml and applies, in order, the selected
// profile, opts.Overrides and opts.Extra on top of it. A missing file
// yields the defaults.
func Load(opts Options) (*Config, error) {
	home := DefaultHome()
	if opts.Home != "" {
		home = expandHome(opts.Home)
	}
	path := filepath.Join(home, FileName)

	var file map[string]any
	var err error
	if opts.text != nil {
		file, err = parseFile(path, []byte(*opts.text))
	} else {
		file, err = readFile(path)
	}
	if err != nil {
		return nil, err
	}
	overrides := map[string]any{}
	for _, o := range opts.Overrides {
		key, value, err := ParseOverride(o)
		if err != nil {
			return nil, err
		}
		parts, _ := splitKey(key) // canonical already
		if err := setPath(overrides, parts, value); err != nil {
			return nil, fmt.Errorf("override %q: %w", o, err)
		}
	}
	extra := map[string]any{}
	for _, k := range sortedKeys(opts.Extra) {
		value := normalizeJSON(opts.Extra[k])
		if value == nil {
			continue
		}
		parts, err := splitKey(k)
		if err != nil {
			return nil, fmt.Errorf("extra setting: %w", err)
		}
		if err := setPath(extra, parts, value); err != nil {
			return nil, fmt.Errorf("extra setting %q: %w", k, err)
		}
	}

	// Profiles and the profile selector may come from any layer.
	view := map[string]any{}
	merge(view, file)
	merge(view, overrides)
	merge(view, extra)
	name := opts.Profile
	if name == "" {
		if v, ok := view["profile"]; ok {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("config key \"profile\": want a string, got %T", v)
			}
			name = s
		}
	}

	tree := defaults()
	merge(tree, file)
	if name != "" {
		profile, err := lookupProfile(view, name)
		if err != nil {
			return nil, err
		}
		merge(tree, profile)
	}
	merge(tree, overrides)
	merge(tree, extra)
	if name != "" {
		tree["profile"] = name
	}

	c, err := decode(tree)
	if err != nil {
		return nil, err
	}
	mcp, unknownMCP, err := parseMCPServers(c.MCPServers)
	if err != nil {
		return nil, err
	}
	c.mcp = mcp
	if len(unknownMCP) > 0 {
		c.unknown = append(c.unknown, unknownMCP...)
		sort.Strings(c.unknown)
	}
	c.quiet = clientKeys(c.unknown, extra, file, overrides)
	if loud := c.loudUnknown(); opts.Strict && len(loud) > 0 {
		return nil, unknownKeysError(loud)
	}
	c.home = home
	c.opts = opts
	c.opts.text = nil
	c.normalizeProviders()
	if c.Temporal.HostQueue == "" {
		c.Temporal.HostQueue = DefaultHostQueue(c.Temporal.TaskQueue)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func defaults() map[string]any {
	return map[string]any{
		"model_provider":  DefaultModelProvider,
		"model_providers": builtinProviders(),
		"approval_policy": DefaultApprovalPolicy,
		"sandbox_mode":    DefaultSandboxMode,
		"max_steps":       int64(DefaultMaxSteps),
		"turn_timeout":    DefaultTurnTimeout,
		"temporal": map[string]any{
			"address":    DefaultTemporalAddr,
			"namespace":  DefaultNamespace,
			"task_queue": DefaultTaskQueue,
		},
	}
}

// readFile parses the config file into a tree; a missing file is empty.
func readFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return parseFile(path, data)
}

// parseFile parses a config file's text into a tree.
func parseFile(path string, data []byte) (map[string]any, error) {
	tree := map[string]any{}
	if err := toml.Unmarshal(data, &tree); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", path, line, col, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tree, nil
}

func lookupProfile(view map[string]any, name string) (map[string]any, error) {
	profiles, _ := view["profiles"].(map[string]any)
	v, ok := profiles[name]
	if !ok {
		known := "none defined"
		if len(profiles) > 0 {
			known = "known: " + strings.Join(sortedKeys(profiles), ", ")
		}
		return nil, fmt.Errorf("profile %q not found (%s)", name, known)
	}
	profile, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config key %q: want a table, got %T", "profiles."+quoteKeyPart(name), v)
	}
	for _, k := range []string{"profile", "profiles"} {
		if _, ok := profile[k]; ok {
			return nil, fmt.Errorf("config key %q: %q cannot be set inside a profile", "profiles."+quoteKeyPart(name)+"."+k, k)
		}
	}
	return profile, nil
}

// decode turns the merged tree into a Config, recording unknown keys.
func decode(tree map[string]any) (*Config, error) {
	data, err := toml.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("encoding merged configuration: %w", err)
	}
	c := &Config{}
	err = toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(c)
	var missing *toml.StrictMissingError
	switch {
	case err == nil:
	case errors.As(err, &missing):
		// The decoder finishes the document before reporting these.
		seen := map[string]bool{}
		for i := range missing.Errors {
			key := joinKey(missing.Errors[i].Key())
			if !seen[key] {
				seen[key] = true
				c.unknown = append(c.unknown, key)
			}
		}
		sort.Strings(c.unknown)
	default:
		var de *toml.DecodeError
		if errors.As(err, &de) && len(de.Key()) > 0 {
			return nil, fmt.Errorf("config key %q: %s", joinKey(de.Key()), strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, fmt.Errorf("invalid configuration: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	return c, nil
}

func unknownKeysError(keys []string) error {
	if len(keys) == 1 {
		if s := Suggest(keys[0]); s != "" {
			return fmt.Errorf("unknown config key %q (did you mean %s?)", keys[0], s)
		}
		return fmt.Errorf("unknown config key %q", keys[0])
	}
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = fmt.Sprintf("%q", k)
	}
	return fmt.Errorf("unknown config keys %s", strings.Join(quoted, ", "))
}

// setPath stores value at the dotted path parts inside m, creating
// intermediate tables and merging tables.
func setPath(m map[string]any, parts []string, value any) error {
	for i, p := range parts[:len(parts)-1] {
		next, ok := m[p]
		if !ok {
			t := map[string]any{}
			m[p] = t
			m = t
			continue
		}
		t, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("config key %q is not a table", joinKey(parts[:i+1]))
		}
		m = t
	}
	merge(m, map[string]any{parts[len(parts)-1]: value})
	return nil
}

// merge overlays src onto dst: tables merge key by key, anything else
// replaces. Values taken from src are deep-copied.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		}
		dst[k] = deepCopy(v)
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if u, err := os.UserHomeDir(); err == nil {
			return filepath.Join(u, p[1:])
		}
	}
	return p
}

// ExpandHome replaces a leading "~" with the user's home directory.
func ExpandHome(p string) string { return expandHome(p) }
