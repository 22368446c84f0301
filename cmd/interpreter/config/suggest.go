package config

import (
	"reflect"
	"sort"
	"strings"
)

// Warnings says, for each unknown key, that it is ignored and which known
// key it is nearest to, if one is near: "unknown config key approval_polcy
// (did you mean approval_policy?)". Load fails on these keys instead in
// strict mode.
func (c *Config) Warnings() []string {
	out := make([]string, 0, len(c.unknown))
	for _, k := range c.loudUnknown() {
		if codexKey(k) {
			out = append(out, "config key "+k+" is Codex's and does nothing here (ignored)")
			continue
		}
		w := "unknown config key " + k + " (ignored"
		if s := Suggest(k); s != "" {
			w = "unknown config key " + k + " (did you mean " + s + "?"
		}
		out = append(out, w+")")
	}
	return out
}

// Suggest returns the known key nearest to an unknown dotted key, or ""
// when none is near.
func Suggest(key string) string {
	parts, err := splitKey(key)
	if err != nil {
		return ""
	}
	t := reflect.TypeOf(Config{})
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case i == 0 && p == "profiles" && len(parts) > 2:
			// A profile holds top-level keys.
			s := Suggest(joinKey(parts[2:]))
			if s == "" {
				return ""
			}
			return joinKey(parts[:2]) + "." + s
		case i == 0 && p == "mcp_servers":
			if len(parts) != 3 {
				return ""
			}
			return nearestOf(parts, 2, sortedKeys(mcpKeys))
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem() // p names an entry
			continue
		case reflect.Struct:
		default:
			return ""
		}
		f, ok := fieldByTag(t, p)
		if !ok {
			return nearestOf(parts, i, tagsOf(t))
		}
		t = f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	return ""
}

// nearestOf replaces parts[i] with the nearest of names, if one is near.
func nearestOf(parts []string, i int, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(parts[i], n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(parts[i])/4) || bestD >= len(parts[i]) {
		return ""
	}
	return joinKey(append(append([]string{}, parts[:i]...), best))
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagsOf(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := tagName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func tagName(f reflect.StructField) string {
	n, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if n == "-" {
		return ""
	}
	return n
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment: a swap of two neighbours counts one).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// codexOnly are Codex's top-level keys that mean nothing here (its own
// clients, the Codex SDK among them, pass some of them with -c): they are
// named as such rather than as typos. Of [features], only the keys of
// [Features] mean something.
var codexOnly = map[string]bool{
	"openai_base_url": true, "chatgpt_base_url": true, "web_search": true, "tools": true, "tui": true,
	"features": true, "notify": true, "history": true, "file_opener": true, "hide_agent_reasoning": true,
	"show_raw_agent_reasoning": true, "forced_login_method": true, "preferred_auth_method": true,
	"projects": true, "model_reasoning_summary_format": true, "disable_response_storage": true,
	"windows_wsl_setup_acknowledged": true, "check_for_update_on_startup": true, "analytics": true,
	"sandbox_mode_override": true, "approvals_reviewer": true,
}

// codexKey tells whether an unknown key is one of Codex's.
func codexKey(k string) bool {
	top, _, _ := strings.Cut(k, ".")
	return codexOnly[top]
}

// QuietKeys are the unknown keys that are Codex's and that only a front
// end's Extra set: what Codex's own clients send with every thread
// (features.goals, tui...), which the user neither wrote nor can act on.
// Warnings leaves them out, and strict loading accepts them.
func (c *Config) QuietKeys() []string {
	var out []string
	for _, k := range c.unknown {
		if c.quiet[k] {
			out = append(out, k)
		}
	}
	return out
}

// loudUnknown are the unknown keys that are not quiet.
func (c *Config) loudUnknown() []string {
	var out []string
	for _, k := range c.unknown {
		if !c.quiet[k] {
			out = append(out, k)
		}
	}
	return out
}

// clientKeys picks the quiet keys out of the unknown ones: Codex's, set
// by Extra, and neither in the file nor in a -c override.
func clientKeys(unknown []string, extra, file, overrides map[string]any) map[string]bool {
	quiet := map[string]bool{}
	for _, k := range unknown {
		parts, err := splitKey(k)
		if err != nil || !codexKey(k) {
			continue
		}
		_, inExtra := lookupPath(extra, parts)
		_, inFile := lookupPath(file, parts)
		_, inOverride := lookupPath(overrides, parts)
		if inExtra && !inFile && !inOverride {
			quiet[k] = true
		}
	}
	return quiet
}
