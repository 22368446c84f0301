package applypatch

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Markers of the patch envelope and of file operations.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addPrefix    = "*** Add File:"
	deletePrefix = "*** Delete File:"
	updatePrefix = "*** Update File:"
	movePrefix   = "*** Move to:"
	eofMarker    = "*** End of File"
)

// OpKind says what a FileOp does to its file.
type OpKind int

// The three kinds of file operation.
const (
	OpAdd OpKind = iota + 1
	OpDelete
	OpUpdate
)

// String returns "add", "delete" or "update" (the values of Change.Kind).
func (k OpKind) String() string {
	switch k {
	case OpAdd:
		return "add"
	case OpDelete:
		return "delete"
	case OpUpdate:
		return "update"
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// Patch is a parsed patch: its file operations in the order they appear.
type Patch struct {
	Hunks []FileOp
}

// FileOp is one "*** Add File", "*** Delete File" or "*** Update File"
// section of a patch.
type FileOp struct {
	Kind     OpKind
	Path     string  // as written in the patch (relative, not yet cleaned)
	MoveTo   string  // Update only: destination of "*** Move to:", or ""
	Contents string  // Add only: the new file's text ("" or ending in "\n")
	Chunks   []Chunk // Update only: the hunks, in file order
	Line     int     // 1-based line of the header in the patch text (0 if built by hand)
}

// Chunk is one hunk of an Update: optional "@@" headers that move the
// search position forward, then context/removed/added lines.
type Chunk struct {
	// Context holds the text after each "@@" header line of the hunk
	// ("@@" alone adds nothing). Each is located in turn, after the
	// previous one, before the hunk's lines are searched for.
	Context []string
	Lines   []ChunkLine
	// EOF is set by "*** End of File": the hunk's old lines must be the
	// last lines of the file (trailing blank lines in the file are allowed).
	EOF  bool
	Line int // 1-based patch line where the hunk starts
}

// ChunkLine is one line of a hunk. Op is ' ' (context), '-' (removed) or
// '+' (added); Text excludes the prefix and the newline.
type ChunkLine struct {
	Op   byte
	Text string
}

// Old returns the lines the hunk expects to find (context and removed).
func (c Chunk) Old() []string { return c.side('-') }

// New returns the lines that replace them (context and added).
func (c Chunk) New() []string { return c.side('+') }

func (c Chunk) side(keep byte) []string {
	out := make([]string, 0, len(c.Lines))
	for _, l := range c.Lines {
		if l.Op == ' ' || l.Op == keep {
			out = append(out, l.Text)
		}
	}
	return out
}

// ParseError reports malformed patch text. Line is 1-based in the text
// given to Parse, or 0 when the problem is not tied to one line.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("invalid patch: line %d: %s", e.Line, e.Msg)
	}
	return "invalid patch: " + e.Msg
}

// Parse reads patch text. It is lenient in the ways Codex is: surrounding
// whitespace, CRLF line ends, whitespace around marker lines, and a
// heredoc wrapper (`<<'EOF'` ... `EOF`, optionally preceded by
// "apply_patch") or a Markdown code fence around the whole patch are all
// accepted. Paths are checked lexically here: absolute paths and paths
// that climb out of the working directory with ".." are rejected.
func Parse(text string) (*Patch, error) {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	first, last, err := envelope(raw)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: raw[:last], i: first + 1}
	var ops []FileOp
	for p.i < len(p.lines) {
		t := strings.TrimSpace(p.lines[p.i])
		var op FileOp
		switch {
		case t == "":
			p.i++
			continue
		case strings.HasPrefix(t, addPrefix):
			op, err = p.parseAdd(t)
		case strings.HasPrefix(t, deletePrefix):
			op, err = p.parseDelete(t)
		case strings.HasPrefix(t, updatePrefix):
			op, err = p.parseUpdate(t)
		case t == endMarker:
			err = p.errf("%q must be the last line of the patch, but more text follows it", endMarker)
		case strings.HasPrefix(t, movePrefix):
			err = p.errf("%q must come right after an %q line", movePrefix, "*** Update File: <path>")
		default:
			err = p.errf("expected a file operation header ('*** Add File: <path>', '*** Update File: <path>' or '*** Delete File: <path>'), got %q", p.lines[p.i])
		}
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, &ParseError{Line: first + 1, Msg: "empty patch: no file operations between '*** Begin Patch' and '*** End Patch'"}
	}
	return &Patch{Hunks: ops}, nil
}

var heredocOpen = regexp.MustCompile(`^(?:apply_?patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)

// envelope finds the Begin and End marker lines (0-based indexes into
// raw), unwrapping a heredoc or code fence first.
func envelope(raw []string) (first, last int, err error) {
	first, last = 0, len(raw)-1
	trim := func() {
		for first <= last && strings.TrimSpace(raw[first]) == "" {
			first++
		}
		for last >= first && strings.TrimSpace(raw[last]) == "" {
			last--
		}
	}
	trim()
	if first > last {
		return 0, 0, &ParseError{Msg: "empty patch: the text is empty; it must start with '*** Begin Patch' and end with '*** End Patch'"}
	}
	head := strings.TrimSpace(raw[first])
	if m := heredocOpen.FindStringSubmatch(head); m != nil && m[1] == m[3] {
		if first == last || strings.TrimSpace(raw[last]) != m[2] {
			return 0, 0, &ParseError{Line: first + 1, Msg: fmt.Sprintf("heredoc %q is not closed: the last line must be %q", head, m[2])}
		}
		first++
		last--
		trim()
	} else if strings.HasPrefix(head, "```") && first < last && strings.TrimSpace(raw[last]) == "```" {
		first++
		last--
		trim()
	}
	if first > last {
		return 0, 0, &ParseError{Line: first, Msg: "empty patch: nothing inside the wrapper"}
	}
	if t := strings.TrimSpace(raw[first]); t != beginMarker {
		return 0, 0, &ParseError{Line: first + 1, Msg: fmt.Sprintf("the first line of the patch must be %q, got %q", beginMarker, t)}
	}
	if t := strings.TrimSpace(raw[last]); first == last || t != endMarker {
		return 0, 0, &ParseError{Line: last + 1, Msg: fmt.Sprintf("the last line of the patch must be %q, got %q", endMarker, t)}
	}
	return first, last, nil
}

type parser struct {
	lines []string // the text up to (not including) the End marker
	i     int      // index of the current line
}

func (p *parser) errf(format string, args ...any) error {
	return &ParseError{Line: p.i + 1, Msg: fmt.Sprintf(format, args...)}
}

// isOpBoundary reports whether a line ends the body of the current file
// operation: another operation header (or a stray marker), possibly
// indented, as Codex tolerates.
func isOpBoundary(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, addPrefix) || strings.HasPrefix(t, deletePrefix) ||
		strings.HasPrefix(t, updatePrefix) || t == endMarker
}

// headerPath extracts and checks the path after a marker.
func (p *parser) headerPath(t, prefix string) (string, error) {
	pth := strings.TrimSpace(strings.TrimPrefix(t, prefix))
	if err := checkRelPath(pth); err != nil {
		return "", p.errf("%s", err.Error())
	}
	return pth, nil
}

// checkRelPath rejects paths that are empty, absolute, or climb out of
// the working directory. It is purely lexical.
func checkRelPath(pth string) error {
	if pth == "" {
		return fmt.Errorf("missing file path")
	}
	s := strings.ReplaceAll(pth, `\`, "/")
	if strings.HasPrefix(s, "/") || (len(s) >= 2 && s[1] == ':' && isLetter(s[0])) {
		return fmt.Errorf("absolute path %q is not allowed: paths must be relative to the working directory", pth)
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("path %q escapes the working directory", pth)
	}
	if c == "." {
		return fmt.Errorf("path %q does not name a file", pth)
	}
	return nil
}

func isLetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func (p *parser) parseAdd(t string) (FileOp, error) {
	op := FileOp{Kind: OpAdd, Line: p.i + 1}
	var err error
	if op.Path, err = p.headerPath(t, addPrefix); err != nil {
		return op, err
	}
	p.i++
	var b strings.Builder
	blanks := 0 // unprefixed blank lines, kept only if more '+' lines follow
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "+"):
			for ; blanks > 0; blanks-- {
				b.WriteByte('\n')
			}
			b.WriteString(l[1:])
			b.WriteByte('\n')
		case strings.TrimSpace(l) == "":
			blanks++
		case isOpBoundary(l):
			op.Contents = b.String()
			return op, nil
		default:
			return op, p.errf("in '*** Add File: %s' every content line must start with '+', got %q", op.Path, l)
		}
	}
	op.Contents = b.String()
	return op, nil
}

func (p *parser) parseDelete(t string) (FileOp, error) {
	op := FileOp{Kind: OpDelete, Line: p.i + 1}
	var err error
	if op.Path, err = p.headerPath(t, deletePrefix); err != nil {
		return op, err
	}
	for p.i++; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if isOpBoundary(l) {
			break
		}
		if strings.TrimSpace(l) != "" {
			return op, p.errf("'*** Delete File: %s' takes no content lines, got %q", op.Path, l)
		}
	}
	return op, nil
}

// unifiedHunkHeader matches a unified-diff "@@ -a,b +c,d @@ text" header,
// which some models write; the numbers are ignored.
var unifiedHunkHeader = regexp.MustCompile(`^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$`)

func (p *parser) parseUpdate(t string) (FileOp, error) {
	op := FileOp{Kind: OpUpdate, Line: p.i + 1}
	var err error
	if op.Path, err = p.headerPath(t, updatePrefix); err != nil {
		return op, err
	}
	p.i++
	if p.i < len(p.lines) {
		if mt := strings.TrimSpace(p.lines[p.i]); strings.HasPrefix(mt, movePrefix) {
			if op.MoveTo, err = p.headerPath(mt, movePrefix); err != nil {
				return op, err
			}
			p.i++
		}
	}

	var cur *Chunk // the open hunk, accepting lines
	trailingBlanks := 0
	closeChunk := func() error {
		if cur == nil {
			return nil
		}
		// Unprefixed blank lines at the end of a hunk are usually separators
		// before the next "@@"; drop them rather than demand blank context.
		if !cur.EOF {
			cur.Lines = cur.Lines[:len(cur.Lines)-trailingBlanks]
		}
		if len(cur.Lines) == 0 {
			return &ParseError{Line: cur.Line, Msg: fmt.Sprintf("hunk %d of '*** Update File: %s' has no lines after its '@@' header", len(op.Chunks)+1, op.Path)}
		}
		op.Chunks = append(op.Chunks, *cur)
		cur, trailingBlanks = nil, 0
		return nil
	}
	open := func() {
		if cur == nil {
			cur = &Chunk{Line: p.i + 1}
		}
	}

	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "@@"):
			ctx := strings.TrimSpace(l[2:])
			if m := unifiedHunkHeader.FindStringSubmatch(ctx); m != nil {
				ctx = strings.TrimSpace(m[1])
			}
			if cur != nil && len(cur.Lines) == trailingBlanks {
				// Only blank separators so far: this header adds to the same hunk.
				cur.Lines, trailingBlanks = cur.Lines[:0], 0
			}
			if cur != nil && len(cur.Lines) > 0 {
				if err := closeChunk(); err != nil {
					return op, err
				}
			}
			open()
			if ctx != "" {
				cur.Context = append(cur.Context, ctx)
			}
		case strings.TrimSpace(l) == "" && !strings.HasPrefix(l, " "):
			// A bare blank line: an empty context line inside a hunk,
			// a separator between hunks.
			if cur != nil {
				cur.Lines = append(cur.Lines, ChunkLine{Op: ' '})
				trailingBlanks++
			}
		case l[0] == ' ' || l[0] == '+' || l[0] == '-':
			open()
			cur.Lines = append(cur.Lines, ChunkLine{Op: l[0], Text: l[1:]})
			trailingBlanks = 0
		case strings.TrimSpace(l) == eofMarker:
			if cur == nil || len(cur.Lines) == 0 {
				return op, p.errf("%q must follow the lines of a hunk", eofMarker)
			}
			cur.EOF = true
			if err := closeChunk(); err != nil {
				return op, err
			}
		case isOpBoundary(l):
			return op, p.finishUpdate(&op, closeChunk)
		case strings.HasPrefix(strings.TrimSpace(l), movePrefix):
			return op, p.errf("%q must come right after the '*** Update File: %s' line", movePrefix, op.Path)
		default:
			return op, p.errf("invalid line in hunk %d of '*** Update File: %s': %q; every hunk line must start with ' ' (context), '-' (removed) or '+' (added), or be an '@@' header", len(op.Chunks)+1, op.Path, l)
		}
	}
	return op, p.finishUpdate(&op, closeChunk)
}

func (p *parser) finishUpdate(op *FileOp, closeChunk func() error) error {
	if err := closeChunk(); err != nil {
		return err
	}
	if len(op.Chunks) == 0 && op.MoveTo == "" {
		return &ParseError{Line: op.Line, Msg: fmt.Sprintf("'*** Update File: %s' has no hunks", op.Path)}
	}
	return nil
}
