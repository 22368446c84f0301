package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// A tomlDoc is a config file's text with the places of its tables and
// keys, so that an edit can change one key's value and leave every other
// byte (comments, blank lines, order, spelling of values) as it was.
type tomlDoc struct {
	text string
	// sections: the root (path nil) first, then each [table] and
	// [[array table]] in the order of the file.
	sections []*docSection
}

// docSection is the root of the file or one table header and the keys
// below it.
type docSection struct {
	path  []string
	array bool
	// start and headerEnd are the byte bounds of the header line (both 0
	// for the root); end is the end of the section's last key's line (or
	// headerEnd).
	start, headerEnd, end int
	entries               []docEntry
}

// docEntry is one `key = value` of a section.
type docEntry struct {
	// key is the (possibly dotted) key, relative to its section.
	key []string
	// lineStart..lineEnd are the lines the entry spans, its newline
	// included; valStart..valEnd is its value.
	lineStart, lineEnd int
	valStart, valEnd   int
	// inline: the value is an inline table.
	inline bool
}

// fullPath is the entry's key from the top of the document.
func (s *docSection) fullPath(e docEntry) []string {
	return append(append([]string{}, s.path...), e.key...)
}

// parseDoc reads a config file's text; a file that is not valid TOML is
// an error (an edit does not guess).
func parseDoc(text string) (*tomlDoc, error) {
	data := []byte(text)
	d := &tomlDoc{text: text}
	cur := &docSection{}
	d.sections = append(d.sections, cur)
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, first, last := keyOf(&p, e.Key())
			start := lineStart(text, first)
			end := lineEnd(text, last)
			cur = &docSection{path: keys, array: e.Kind == unstable.ArrayTable, start: start, headerEnd: end, end: end}
			d.sections = append(d.sections, cur)
		case unstable.KeyValue:
			keys, first, last := keyOf(&p, e.Key())
			valEnd := int(e.Raw.Offset + e.Raw.Length)
			valStart := last
			for valStart < len(text) && (text[valStart] == ' ' || text[valStart] == '\t') {
				valStart++
			}
			if valStart < len(text) && text[valStart] == '=' {
				valStart++
			}
			for valStart < len(text) && (text[valStart] == ' ' || text[valStart] == '\t') {
				valStart++
			}
			entry := docEntry{key: keys, lineStart: lineStart(text, first), lineEnd: lineEnd(text, valEnd),
				valStart: valStart, valEnd: valEnd, inline: e.Value().Kind == unstable.InlineTable}
			cur.entries = append(cur.entries, entry)
			cur.end = entry.lineEnd
		}
	}
	if err := p.Error(); err != nil {
		var perr *unstable.ParserError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("config.toml is not valid TOML: %s", perr.Message)
		}
		return nil, fmt.Errorf("config.toml is not valid TOML: %v", err)
	}
	return d, nil
}

// keyOf reads a dotted key: its parts and where its text begins and ends.
func keyOf(p *unstable.Parser, it unstable.Iterator) (parts []string, first, last int) {
	first = -1
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if first < 0 {
			first = int(n.Raw.Offset)
		}
		last = int(n.Raw.Offset + n.Raw.Length)
	}
	return parts, first, last
}

// lineStart is the offset of the start of the line holding offset.
func lineStart(text string, offset int) int {
	return strings.LastIndexByte(text[:offset], '\n') + 1
}

// lineEnd is the offset just past the newline that ends the line holding
// offset (or the end of the text).
func lineEnd(text string, offset int) int {
	if offset > len(text) {
		return len(text)
	}
	i := strings.IndexByte(text[offset:], '\n')
	if i < 0 {
		return len(text)
	}
	return offset + i + 1
}

// hasPrefix tells whether path begins with prefix.
func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

func samePath(a, b []string) bool { return len(a) == len(b) && hasPrefix(a, b) }

// cut is a range of the text to replace.
type cut struct {
	from, to int
	with     string
}

// apply replaces the ranges (which do not overlap) in the text. A
// removal that leaves two blank lines in a row takes one of them along.
func (d *tomlDoc) apply(cuts []cut) string {
	// Later ranges first, so that earlier offsets stay true.
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].from > cuts[j].from })
	text := d.text
	for _, c := range cuts {
		before, after := text[:c.from], text[c.to:]
		if c.with == "" && (before == "" || strings.HasSuffix(before, "\n\n")) && strings.HasPrefix(after, "\n") {
			after = after[1:]
		}
		if c.with == "" && after == "" {
			before = strings.TrimRight(before, "\n")
			if before != "" {
				before += "\n"
			}
		}
		text = before + c.with + after
	}
	return text
}
