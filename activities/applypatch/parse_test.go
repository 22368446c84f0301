package applypatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ctxLines(ops string, texts ...string) []ChunkLine {
	out := make([]ChunkLine, len(texts))
	for i, t := range texts {
		out[i] = ChunkLine{Op: ops[i], Text: t}
	}
	return out
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []FileOp
	}{
		{
			name: "all operations",
			in: `*** Begin Patch
*** Add File: path/to/new.txt
+line one
+line two
*** Update File: src/app.py
*** Move to: src/main.py
@@ def f():
 context line
-removed line
+added line
*** Delete File: old.txt
*** End Patch
`,
			want: []FileOp{
				{Kind: OpAdd, Path: "path/to/new.txt", Contents: "line one\nline two\n", Line: 2},
				{Kind: OpUpdate, Path: "src/app.py", MoveTo: "src/main.py", Line: 5, Chunks: []Chunk{{
					Context: []string{"def f():"},
					Lines:   ctxLines(" -+", "context line", "removed line", "added line"),
					Line:    7,
				}}},
				{Kind: OpDelete, Path: "old.txt", Line: 11},
			},
		},
		{
			name: "heredoc wrapper and surrounding whitespace",
			in:   "\n  apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF\n\n",
			want: []FileOp{{Kind: OpDelete, Path: "a.txt", Line: 4}},
		},
		{
			name: "bare heredoc with double quotes",
			in:   "<<\"PATCH\"\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nPATCH",
			want: []FileOp{{Kind: OpDelete, Path: "a.txt", Line: 3}},
		},
		{
			name: "markdown fence",
			in:   "```diff\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n```\n",
			want: []FileOp{{Kind: OpDelete, Path: "a.txt", Line: 3}},
		},
		{
			name: "CRLF and padded markers",
			in:   "*** Begin Patch \r\n  *** Update File: a.txt\r\n@@\r\n-one\r\n+two\r\n *** End Patch\r\n",
			want: []FileOp{{Kind: OpUpdate, Path: "a.txt", Line: 2, Chunks: []Chunk{{
				Lines: ctxLines("-+", "one", "two"), Line: 3,
			}}}},
		},
		{
			name: "first hunk without @@, repeated headers, unified header, EOF",
			in: `*** Begin Patch
*** Update File: a.go
 import foo
+import bar
@@ class A
@@     def m():
-    x
+    y
@@ -10,2 +10,2 @@ func tail()
-last
+LAST
*** End of File
*** End Patch`,
			want: []FileOp{{Kind: OpUpdate, Path: "a.go", Line: 2, Chunks: []Chunk{
				{Lines: ctxLines(" +", "import foo", "import bar"), Line: 3},
				{Context: []string{"class A", "def m():"}, Lines: ctxLines("-+", "    x", "    y"), Line: 5},
				{Context: []string{"func tail()"}, Lines: ctxLines("-+", "last", "LAST"), EOF: true, Line: 9},
			}}},
		},
		{
			name: "blank lines: empty context inside a hunk, separators dropped",
			in:   "*** Begin Patch\n*** Update File: a\n@@\n a\n\n b\n+c\n\n\n@@ x\n-y\n*** End Patch",
			want: []FileOp{{Kind: OpUpdate, Path: "a", Line: 2, Chunks: []Chunk{
				{Lines: ctxLines("   +", "a", "", "b", "c"), Line: 3},
				{Context: []string{"x"}, Lines: ctxLines("-", "y"), Line: 10},
			}}},
		},
		{
			name: "add keeps inner blank lines, empty add",
			in:   "*** Begin Patch\n*** Add File: a\n+x\n\n+y\n\n*** Add File: empty\n*** End Patch",
			want: []FileOp{
				{Kind: OpAdd, Path: "a", Contents: "x\n\ny\n", Line: 2},
				{Kind: OpAdd, Path: "empty", Line: 7},
			},
		},
		{
			name: "pure rename",
			in:   "*** Begin Patch\n*** Update File: a\n*** Move to: b/c\n*** End Patch",
			want: []FileOp{{Kind: OpUpdate, Path: "a", MoveTo: "b/c", Line: 2}},
		},
		{
			name: "context lines that look like markers",
			in:   "*** Begin Patch\n*** Update File: a\n@@\n *** Update File: x\n-*** End Patch\n+done\n*** End Patch",
			want: []FileOp{{Kind: OpUpdate, Path: "a", Line: 2, Chunks: []Chunk{
				{Lines: ctxLines(" -+", "*** Update File: x", "*** End Patch", "done"), Line: 3},
			}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(p.Hunks, tc.want) {
				t.Errorf("got  %#v\nwant %#v", p.Hunks, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		want string
	}{
		{"empty text", "  \n\n", 0, "empty patch"},
		{"no operations", "*** Begin Patch\n\n*** End Patch", 1, "empty patch"},
		{"missing begin", "*** Add File: a\n+x\n*** End Patch", 1, "first line of the patch must be \"*** Begin Patch\""},
		{"missing end", "*** Begin Patch\n*** Add File: a\n+x\n", 3, "last line of the patch must be \"*** End Patch\""},
		{"only begin", "*** Begin Patch", 1, "last line"},
		{"unclosed heredoc", "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch", 1, "heredoc"},
		{"bad op header", "*** Begin Patch\n*** Rename File: a\n*** End Patch", 2, "expected a file operation header"},
		{"invalid hunk line prefix", "*** Begin Patch\n*** Update File: a.py\n@@\n ctx\nbad line\n*** End Patch", 5, "invalid line in hunk 1 of '*** Update File: a.py': \"bad line\""},
		{"tab-prefixed hunk line", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n@@\n\tz\n*** End Patch", 7, "invalid line in hunk 2"},
		{"update without hunks", "*** Begin Patch\n*** Update File: a\n*** Delete File: b\n*** End Patch", 2, "has no hunks"},
		{"header without lines", "*** Begin Patch\n*** Update File: a\n@@ def f():\n*** End Patch", 3, "has no lines"},
		{"add line without plus", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch", 4, "must start with '+'"},
		{"delete with body", "*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch", 3, "takes no content lines"},
		{"absolute path", "*** Begin Patch\n*** Add File: /etc/passwd\n+x\n*** End Patch", 2, "absolute path \"/etc/passwd\""},
		{"windows absolute path", "*** Begin Patch\n*** Delete File: C:\\x\n*** End Patch", 2, "absolute path"},
		{"dot-dot escape", "*** Begin Patch\n*** Add File: a/../../x\n+x\n*** End Patch", 2, "escapes the working directory"},
		{"escaping move", "*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n*** End Patch", 3, "escapes"},
		{"missing path", "*** Begin Patch\n*** Delete File:   \n*** End Patch", 2, "missing file path"},
		{"misplaced move", "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** Move to: b\n*** End Patch", 5, "must come right after"},
		{"end of file first", "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch", 3, "must follow the lines of a hunk"},
		{"early end patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch", 3, "must be the last line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse succeeded: %#v", p)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if pe.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ f\n x\n-y\n+z\n\n*** End of File\n*** Delete File: c\n*** End Patch\n",
		"<<'EOF'\n*** Begin Patch\n*** Update File: a\n@@ -1 +1 @@\n-a\n+b\n*** End Patch\nEOF",
		"```\n*** Begin Patch\n*** End Patch\n```",
		"*** Begin Patch\n@@\n*** End Patch",
		"",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			if p != nil {
				t.Fatal("non-nil patch with error")
			}
			return
		}
		if len(p.Hunks) == 0 {
			t.Fatal("successful parse with no operations")
		}
		for _, op := range p.Hunks {
			if checkRelPath(op.Path) != nil {
				t.Fatalf("accepted bad path %q", op.Path)
			}
			if op.Kind == OpUpdate && len(op.Chunks) == 0 && op.MoveTo == "" {
				t.Fatal("update without hunks or move")
			}
			for _, c := range op.Chunks {
				if len(c.Lines) == 0 {
					t.Fatal("empty hunk")
				}
			}
		}
	})
}
