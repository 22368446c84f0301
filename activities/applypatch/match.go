package applypatch

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Matching levels, tried in order over the whole search range: an exact
// match anywhere wins over a looser match earlier in the file.
const (
	levelExact     = iota // byte-for-byte
	levelTrimRight        // ignoring trailing whitespace
	levelTrim             // ignoring leading and trailing whitespace
	levelPunct            // also mapping Unicode dashes, quotes and spaces to ASCII
	numLevels
)

// punctASCII maps typographic punctuation to its ASCII look-alike.
var punctASCII = map[rune]rune{
	'\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
	'\u2018': '\'', '\u2019': '\'', '\u201A': '\'', '\u201B': '\'',
	'\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"',
	'\u00A0': ' ', '\u2002': ' ', '\u2003': ' ', '\u2004': ' ', '\u2005': ' ', '\u2006': ' ',
	'\u2007': ' ', '\u2008': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u205F': ' ', '\u3000': ' ',
}

func lineKey(level int, s string) string {
	switch level {
	case levelExact:
		return s
	case levelTrimRight:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case levelTrim:
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if a, ok := punctASCII[r]; ok {
			return a
		}
		return r
	}, s))
}

// fileText is a file's lines with lazily computed comparison keys.
type fileText struct {
	lines []string
	keys  [numLevels][]string
}

func (t *fileText) key(level int) []string {
	if t.keys[level] == nil {
		k := make([]string, len(t.lines))
		for i, l := range t.lines {
			k[i] = lineKey(level, l)
		}
		t.keys[level] = k
	}
	return t.keys[level]
}

func keysOf(level int, pattern []string) []string {
	k := make([]string, len(pattern))
	for i, l := range pattern {
		k[i] = lineKey(level, l)
	}
	return k
}

func equalAt(hay []string, at int, pat []string) bool {
	for j, p := range pat {
		if hay[at+j] != p {
			return false
		}
	}
	return true
}

// seek returns the first index >= start where pattern occurs, trying each
// matching level in turn, or -1.
func (t *fileText) seek(pattern []string, start int) int {
	if len(pattern) == 0 {
		return start
	}
	for level := 0; level < numLevels; level++ {
		hay, pat := t.key(level), keysOf(level, pattern)
		for i := start; i+len(pat) <= len(hay); i++ {
			if equalAt(hay, i, pat) {
				return i
			}
		}
	}
	return -1
}

// seekEnd is seek for hunks anchored at the end of the file: the match must
// end at the last line, or be followed only by blank lines.
func (t *fileText) seekEnd(pattern []string, start int) int {
	for level := 0; level < numLevels; level++ {
		hay, pat := t.key(level), keysOf(level, pattern)
		for end := len(hay); end >= 0; end-- {
			if i := end - len(pat); i >= start && equalAt(hay, i, pat) {
				return i
			}
			if end == 0 || strings.TrimSpace(t.lines[end-1]) != "" {
				break
			}
		}
	}
	return -1
}

// splitLines splits file content into lines without terminators. A final
// newline does not start an extra line. If every line ends in CRLF the
// "\r" is stripped and crlf is true.
func splitLines(content string) (lines []string, crlf bool) {
	if content == "" {
		return nil, false
	}
	lines = strings.Split(content, "\n")
	var terminated []string
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		terminated = lines
	} else {
		terminated = lines[:len(lines)-1]
	}
	crlf = len(terminated) > 0
	for _, l := range terminated {
		if !strings.HasSuffix(l, "\r") {
			crlf = false
			break
		}
	}
	if crlf {
		for i, l := range lines {
			lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return lines, crlf
}

type replacement struct {
	start, n int // lines[start:start+n] are replaced
	with     []string
}

// hunkError describes a hunk that could not be located.
type hunkError struct {
	path  string
	index int // 1-based hunk number
	line  int // patch line
	msg   string
}

func (e *hunkError) Error() string {
	where := fmt.Sprintf("hunk %d", e.index)
	if e.line > 0 {
		where += fmt.Sprintf(" (patch line %d)", e.line)
	}
	return fmt.Sprintf("Update File %q: %s: %s", e.path, where, e.msg)
}

// applyChunks returns content with every hunk applied, or an error naming
// the first hunk that cannot be located. The result always ends with a
// newline and keeps CRLF line ends if the file used them throughout.
func applyChunks(path, content string, chunks []Chunk) (string, error) {
	lines, crlf := splitLines(content)
	t := &fileText{lines: lines}
	var reps []replacement
	cursor := 0
	for ci, ch := range chunks {
		fail := func(format string, args ...any) error {
			return &hunkError{path: path, index: ci + 1, line: ch.Line, msg: fmt.Sprintf(format, args...)}
		}
		header := -1
		for _, h := range ch.Context {
			idx := t.seek([]string{h}, cursor)
			if idx < 0 {
				msg := fmt.Sprintf("could not find the context header line %q", "@@ "+h)
				if cursor > 0 {
					msg += fmt.Sprintf(" at or after file line %d", cursor+1)
					if t.seek([]string{h}, 0) >= 0 {
						msg += " (it only occurs earlier; hunks must be in file order)"
					}
				}
				return "", fail("%s", msg)
			}
			header, cursor = idx, idx+1
		}
		lns := ch.Lines
		old := ch.Old()
		// A hunk whose first line repeats its @@ header: search from the header itself.
		if header >= 0 && len(old) > 0 && lineKey(levelPunct, old[0]) == lineKey(levelPunct, lines[header]) {
			cursor = header
		}
		if len(old) == 0 {
			at := len(lines)
			if header >= 0 && !ch.EOF {
				at = cursor
			}
			reps = append(reps, replacement{start: at, with: ch.New()})
			continue
		}
		seek := t.seek
		if ch.EOF {
			seek = t.seekEnd
		}
		idx := seek(old, cursor)
		if idx < 0 {
			// Retry without trailing blank context lines, which models often add.
			trimmed := trimTrailingBlankContext(lns)
			if len(trimmed) < len(lns) {
				if o := (Chunk{Lines: trimmed}).Old(); len(o) > 0 {
					if idx = seek(o, cursor); idx >= 0 {
						lns, old = trimmed, o
					}
				}
			}
		}
		if idx < 0 {
			return "", fail("%s", notFound(t, old, cursor, ch.EOF))
		}
		with := make([]string, 0, len(lns))
		oi := idx
		for _, l := range lns {
			switch l.Op {
			case ' ':
				with = append(with, lines[oi]) // keep the file's own text for context
				oi++
			case '-':
				oi++
			default:
				with = append(with, l.Text)
			}
		}
		reps = append(reps, replacement{start: idx, n: len(old), with: with})
		cursor = idx + len(old)
	}

	sort.SliceStable(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	out := make([]string, 0, len(lines)+8)
	pos := 0
	for _, r := range reps {
		out = append(out, lines[pos:r.start]...)
		out = append(out, r.with...)
		pos = r.start + r.n
	}
	out = append(out, lines[pos:]...)
	if len(out) == 0 {
		return "", nil
	}
	sep := "\n"
	if crlf {
		sep = "\r\n"
	}
	return strings.Join(out, sep) + sep, nil
}

func trimTrailingBlankContext(lns []ChunkLine) []ChunkLine {
	n := len(lns)
	for n > 0 && lns[n-1].Op == ' ' && strings.TrimSpace(lns[n-1].Text) == "" {
		n--
	}
	return lns[:n]
}

// notFound explains why old could not be located, for a model to act on.
func notFound(t *fileText, old []string, cursor int, eof bool) string {
	var b strings.Builder
	b.WriteString("could not find the expected lines")
	if eof {
		b.WriteString(" at the end of the file (the hunk ends with '*** End of File')")
	} else if cursor > 0 {
		fmt.Fprintf(&b, " at or after file line %d", cursor+1)
	}
	b.WriteString(":\n")
	const maxShown = 20
	for i, l := range old {
		if i == maxShown {
			fmt.Fprintf(&b, "    ... (%d more lines)\n", len(old)-maxShown)
			break
		}
		b.WriteString("    " + l + "\n")
	}
	if cursor > 0 && !eof {
		if at := t.seek(old, 0); at >= 0 {
			fmt.Fprintf(&b, "They occur at file line %d, before the end of the previous hunk; hunks must be in file order and must not overlap.\n", at+1)
			return strings.TrimRight(b.String(), "\n")
		}
	}
	// Report hunk lines that appear nowhere in the file, then the longest
	// partial match, using the loosest comparison.
	hay, pat := t.key(levelPunct), keysOf(levelPunct, old)
	present := make(map[string]bool, len(hay))
	for _, k := range hay {
		present[k] = true
	}
	var missing []string
	for i, k := range pat {
		if !present[k] {
			missing = append(missing, fmt.Sprintf("    hunk line %d: %q", i+1, old[i]))
		}
	}
	if len(missing) > 0 {
		if len(missing) > maxShown {
			missing = append(missing[:maxShown], "    ...")
		}
		b.WriteString("These lines do not occur anywhere in the file:\n" + strings.Join(missing, "\n") + "\n")
	}
	best, bestAt := 0, -1
	for i := range hay {
		n := 0
		for n < len(pat) && i+n < len(hay) && hay[i+n] == pat[n] {
			n++
		}
		if n > best {
			best, bestAt = n, i
		}
	}
	if best > 0 && best < len(pat) && bestAt+best < len(hay) {
		fmt.Fprintf(&b, "Closest match: the first %d line(s) match at file line %d, but hunk line %d %q differs from file line %d %q.\n",
			best, bestAt+1, best+1, old[best], bestAt+best+1, t.lines[bestAt+best])
	}
	b.WriteString("Re-read the file and regenerate this hunk with exact context.")
	return b.String()
}
