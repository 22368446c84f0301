package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ErrNonTableParent: a key was to be set below a key whose value is not a
// table (model.foo when model is a string).
var ErrNonTableParent = errors.New("cannot set value on non-table parent")

// setKey sets the key at path to a TOML literal (any value, an inline
// table included). An existing value is replaced where it stands; a new
// key goes at the end of the table that holds its parent (made at the
// end of the file when there is none).
func setKey(text string, path []string, lit string) (string, error) {
	d, err := parseDoc(text)
	if err != nil {
		return "", err
	}
	if d.isTable(path) {
		// A table becomes a value: its keys and sub-tables go first.
		if text, err = removeKey(text, path); err != nil {
			return "", err
		}
		if d, err = parseDoc(text); err != nil {
			return "", err
		}
	}
	for _, s := range d.sections {
		if s.array && hasPrefix(path, s.path) {
			return "", fmt.Errorf("%s is in an array of tables ([[%s]]); edit config.toml by hand", joinKey(path), joinKey(s.path))
		}
		for _, e := range s.entries {
			full := s.fullPath(e)
			switch {
			case samePath(full, path):
				return d.apply([]cut{{e.valStart, e.valEnd, lit}}), nil
			case hasPrefix(path, full) && e.inline:
				return d.rewriteInline(e, path[len(full):], lit)
			case hasPrefix(path, full):
				return "", ErrNonTableParent
			}
		}
	}
	return d.insert(path, lit), nil
}

// isTable tells whether path is a table in the document: a header at or
// below it, or keys below it.
func (d *tomlDoc) isTable(path []string) bool {
	for _, s := range d.sections {
		if s.path != nil && hasPrefix(s.path, path) {
			return true
		}
		for _, e := range s.entries {
			if full := s.fullPath(e); len(full) > len(path) && hasPrefix(full, path) {
				return true
			}
		}
	}
	return false
}

// insert adds a key that is not in the document.
func (d *tomlDoc) insert(path []string, lit string) string {
	parent := path[:len(path)-1]
	// The table of the parent itself, or one above it whose keys already
	// define the parent with dotted keys (features.x = 1 at the top).
	var best *docSection
	for _, s := range d.sections {
		if s.array || !hasPrefix(parent, s.path) {
			continue
		}
		if !samePath(s.path, parent) && !s.definesBelow(parent) {
			continue
		}
		if best == nil || len(s.path) > len(best.path) {
			best = s
		}
	}
	if best == nil && len(parent) > 0 {
		text := d.text
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		return text + "[" + joinKey(parent) + "]\n" + quoteKeyPart(path[len(path)-1]) + " = " + lit + "\n"
	}
	if best == nil {
		best = d.sections[0]
	}
	line := joinKey(path[len(best.path):]) + " = " + lit + "\n"
	at := best.end
	switch {
	case at > 0 && d.text[at-1] != '\n':
		line = "\n" + line
	case at == 0 && d.text != "" && !strings.HasPrefix(d.text, "\n"):
		line += "\n"
	}
	return d.apply([]cut{{at, at, line}})
}

// definesBelow tells whether a key of s is below path (s's keys define
// path's table with dotted keys).
func (s *docSection) definesBelow(path []string) bool {
	for _, e := range s.entries {
		if full := s.fullPath(e); len(full) > len(path) && hasPrefix(full, path) {
			return true
		}
	}
	return false
}

// removeKey removes the key at path: its line, or its table with all its
// keys and sub-tables. Comments above a removed table that are not inside
// it stay. A key that is not there is no change.
func removeKey(text string, path []string) (string, error) {
	d, err := parseDoc(text)
	if err != nil {
		return "", err
	}
	var cuts []cut
	for _, s := range d.sections {
		if s.path != nil && hasPrefix(s.path, path) {
			cuts = append(cuts, cut{s.start, s.end, ""})
			continue
		}
		for _, e := range s.entries {
			full := s.fullPath(e)
			switch {
			case hasPrefix(full, path):
				cuts = append(cuts, cut{e.lineStart, e.lineEnd, ""})
			case hasPrefix(path, full) && e.inline:
				return d.rewriteInline(e, path[len(full):], "")
			}
		}
	}
	return d.apply(cuts), nil
}

// rewriteInline sets (lit != "") or removes (lit == "") the key rest
// inside an inline table's value, which is written anew (comments inside
// the braces are not kept: an inline table has none).
func (d *tomlDoc) rewriteInline(e docEntry, rest []string, lit string) (string, error) {
	var doc map[string]any
	if err := toml.Unmarshal([]byte("v = "+d.text[e.valStart:e.valEnd]), &doc); err != nil {
		return "", fmt.Errorf("reading an inline table: %v", err)
	}
	table, _ := doc["v"].(map[string]any)
	if lit == "" {
		deletePath(table, rest)
	} else {
		var v map[string]any
		if err := toml.Unmarshal([]byte("v = "+lit), &v); err != nil {
			return "", fmt.Errorf("reading a value: %v", err)
		}
		if err := setPath(table, rest, v["v"]); err != nil {
			return "", ErrNonTableParent
		}
	}
	out, err := valueLiteral(table)
	if err != nil {
		return "", err
	}
	return d.apply([]cut{{e.valStart, e.valEnd, out}}), nil
}

// deletePath removes the key at parts from a tree.
func deletePath(m map[string]any, parts []string) {
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}
