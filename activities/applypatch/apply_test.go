package applypatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeTree creates files (path -> content) under a new temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// readTree returns every regular file under root (path -> content).
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func listDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			dirs = append(dirs, rel)
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs
}

func mustParse(t *testing.T, text string) *Patch {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func assertTree(t *testing.T, root string, want map[string]string) {
	t.Helper()
	got := readTree(t, root)
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: missing", p)
		} else if g != w {
			t.Errorf("%s:\n got %q\nwant %q", p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: unexpected file (content %q)", p, got[p])
		}
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name   string
		before map[string]string
		patch  string
		after  map[string]string
	}{
		{
			name:   "add, update with move, delete",
			before: map[string]string{"src/app.py": "import os\n\ndef f():\n    return 1\n", "old.txt": "bye\n"},
			patch: `*** Begin Patch
*** Add File: path/to/new.txt
+line one
+line two
*** Update File: src/app.py
*** Move to: src/main.py
@@ def f():
-    return 1
+    return 2
*** Delete File: old.txt
*** End Patch`,
			after: map[string]string{
				"path/to/new.txt": "line one\nline two\n",
				"src/main.py":     "import os\n\ndef f():\n    return 2\n",
			},
		},
		{
			name:   "multiple hunks in order",
			before: map[string]string{"m.txt": "a\nb\nc\nd\ne\nf\ng\nh\n"},
			patch:  "*** Begin Patch\n*** Update File: m.txt\n@@\n a\n-b\n+B\n c\n@@\n f\n-g\n+G\n+G2\n*** End Patch",
			after:  map[string]string{"m.txt": "a\nB\nc\nd\ne\nf\nG\nG2\nh\n"},
		},
		{
			name:   "repeated block disambiguated by @@ headers",
			before: map[string]string{"x.py": "class A:\n    def m(self):\n        return 0\nclass B:\n    def m(self):\n        return 0\n"},
			patch:  "*** Begin Patch\n*** Update File: x.py\n@@ class B:\n@@ def m(self):\n-        return 0\n+        return 1\n*** End Patch",
			after:  map[string]string{"x.py": "class A:\n    def m(self):\n        return 0\nclass B:\n    def m(self):\n        return 1\n"},
		},
		{
			name:   "end of file anchor picks the last occurrence",
			before: map[string]string{"t.txt": "x\nend\ny\nend\n\n"},
			patch:  "*** Begin Patch\n*** Update File: t.txt\n@@\n-end\n+END\n*** End of File\n*** End Patch",
			after:  map[string]string{"t.txt": "x\nend\ny\nEND\n\n"},
		},
		{
			name:   "pure addition appends at end without header",
			before: map[string]string{"a.txt": "one\ntwo"},
			patch:  "*** Begin Patch\n*** Update File: a.txt\n@@\n+three\n*** End Patch",
			after:  map[string]string{"a.txt": "one\ntwo\nthree\n"},
		},
		{
			name:   "pure addition goes after its header",
			before: map[string]string{"a.go": "func a() {\n}\nfunc b() {\n}\n"},
			patch:  "*** Begin Patch\n*** Update File: a.go\n@@ func a() {\n+\tx()\n*** End Patch",
			after:  map[string]string{"a.go": "func a() {\n\tx()\n}\nfunc b() {\n}\n"},
		},
		{
			name:   "trailing whitespace in the file is ignored, context keeps file text",
			before: map[string]string{"w.txt": "keep   \nold\t\n"},
			patch:  "*** Begin Patch\n*** Update File: w.txt\n keep\n-old\n+new\n*** End Patch",
			after:  map[string]string{"w.txt": "keep   \nnew\n"},
		},
		{
			name:   "indentation differences are tolerated",
			before: map[string]string{"i.py": "if x:\n        y = 1\n"},
			patch:  "*** Begin Patch\n*** Update File: i.py\n if x:\n-    y = 1\n+        y = 2\n*** End Patch",
			after:  map[string]string{"i.py": "if x:\n        y = 2\n"},
		},
		{
			name:   "unicode punctuation matches ASCII in the patch",
			before: map[string]string{"u.txt": "say \u201chello\u201d \u2014 it\u2019s\u00a0fine\nnext\n"},
			patch:  "*** Begin Patch\n*** Update File: u.txt\n-say \"hello\" - it's fine\n+say hi\n next\n*** End Patch",
			after:  map[string]string{"u.txt": "say hi\nnext\n"},
		},
		{
			name:   "exact match preferred over earlier fuzzy match",
			before: map[string]string{"e.txt": "x  \nx\n"},
			patch:  "*** Begin Patch\n*** Update File: e.txt\n-x\n+y\n*** End Patch",
			after:  map[string]string{"e.txt": "x  \ny\n"},
		},
		{
			name:   "CRLF file stays CRLF",
			before: map[string]string{"c.txt": "a\r\nb\r\n"},
			patch:  "*** Begin Patch\n*** Update File: c.txt\n a\n-b\n+c\n*** End Patch",
			after:  map[string]string{"c.txt": "a\r\nc\r\n"},
		},
		{
			name:   "trailing blank context is retried without it",
			before: map[string]string{"b.txt": "a\nb\n"},
			patch:  "*** Begin Patch\n*** Update File: b.txt\n-b\n+c\n \n*** End Patch",
			after:  map[string]string{"b.txt": "a\nc\n"},
		},
		{
			name:   "header repeated as first context line",
			before: map[string]string{"h.py": "def f():\n    pass\n"},
			patch:  "*** Begin Patch\n*** Update File: h.py\n@@ def f():\n def f():\n-    pass\n+    return 1\n*** End Patch",
			after:  map[string]string{"h.py": "def f():\n    return 1\n"},
		},
		{
			name:   "delete then add the same file, update twice",
			before: map[string]string{"d.txt": "old\n", "u.txt": "1\n2\n"},
			patch:  "*** Begin Patch\n*** Delete File: d.txt\n*** Add File: d.txt\n+new\n*** Update File: u.txt\n-1\n+one\n*** Update File: u.txt\n-2\n+two\n*** End Patch",
			after:  map[string]string{"d.txt": "new\n", "u.txt": "one\ntwo\n"},
		},
		{
			name:   "pure rename into a new directory",
			before: map[string]string{"a.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: new/dir/b.txt\n*** End Patch",
			after:  map[string]string{"new/dir/b.txt": "x\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.before)
			if _, err := Apply(root, mustParse(t, tc.patch), Options{}); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			assertTree(t, root, tc.after)
		})
	}
}

func TestApplyResult(t *testing.T) {
	root := writeTree(t, map[string]string{"src/app.py": "a\nb\n", "old.txt": "bye\n"})
	p := mustParse(t, "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n a\n-b\n+c\n*** Delete File: old.txt\n*** End Patch")
	res, err := Apply(root, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "A new.txt\nM src/main.py\nD old.txt"; res.Summary != want {
		t.Errorf("Summary = %q, want %q", res.Summary, want)
	}
	want := []Change{
		{Path: "new.txt", Kind: "add", Diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"},
		{Path: "src/app.py", Kind: "update", MovePath: "src/main.py", Diff: "--- a/src/app.py\n+++ b/src/main.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"},
		{Path: "old.txt", Kind: "delete", Diff: "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
	}
	if len(res.Changes) != len(want) {
		t.Fatalf("got %d changes, want %d", len(res.Changes), len(want))
	}
	for i := range want {
		if res.Changes[i] != want[i] {
			t.Errorf("change %d:\n got %#v\nwant %#v", i, res.Changes[i], want[i])
		}
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name   string
		before map[string]string
		patch  string
		want   []string
		is     error
	}{
		{
			name:  "update missing file",
			patch: "*** Begin Patch\n*** Update File: nope.txt\n-a\n+b\n*** End Patch",
			want:  []string{`Update File "nope.txt"`, "file not found"},
			is:    fs.ErrNotExist,
		},
		{
			name:  "delete missing file",
			patch: "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
			want:  []string{`Delete File "nope.txt"`, "file not found"},
			is:    fs.ErrNotExist,
		},
		{
			name:   "add existing file",
			before: map[string]string{"a.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Add File: a.txt\n+y\n*** End Patch",
			want:   []string{`Add File "a.txt"`, "file already exists"},
			is:     fs.ErrExist,
		},
		{
			name:   "move onto existing file",
			before: map[string]string{"a.txt": "x\n", "b.txt": "y\n"},
			patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch",
			want:   []string{"destination already exists"},
			is:     fs.ErrExist,
		},
		{
			name:   "context not found names file, hunk and lines",
			before: map[string]string{"f.py": "def f():\n    return 1\n"},
			patch:  "*** Begin Patch\n*** Update File: f.py\n@@\n def f():\n-    return 3\n+    return 4\n*** End Patch",
			want:   []string{`Update File "f.py": hunk 1 (patch line 3)`, "could not find the expected lines", `hunk line 2: "    return 3"`, "Closest match: the first 1 line(s) match at file line 1"},
		},
		{
			name:   "header not found",
			before: map[string]string{"f.py": "x\n"},
			patch:  "*** Begin Patch\n*** Update File: f.py\n@@ def g():\n-x\n*** End Patch",
			want:   []string{`could not find the context header line "@@ def g():"`},
		},
		{
			name:   "hunks out of order",
			before: map[string]string{"o.txt": "a\nb\nc\n"},
			patch:  "*** Begin Patch\n*** Update File: o.txt\n@@\n-c\n+C\n@@\n-a\n+A\n*** End Patch",
			want:   []string{"hunk 2", "They occur at file line 1", "file order"},
		},
		{
			name:   "end of file anchor not at end",
			before: map[string]string{"t.txt": "a\nb\n"},
			patch:  "*** Begin Patch\n*** Update File: t.txt\n-a\n+A\n*** End of File\n*** End Patch",
			want:   []string{"at the end of the file"},
		},
		{
			name:   "delete a directory",
			before: map[string]string{"dir/f.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Delete File: dir\n*** End Patch",
			want:   []string{"is a directory"},
		},
		{
			name:   "parent is a file",
			before: map[string]string{"f.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Add File: f.txt/g.txt\n+y\n*** End Patch",
			want:   []string{"is a file, not a directory"},
		},
		{
			name:   "binary file",
			before: map[string]string{"b.bin": "a\x00b\n"},
			patch:  "*** Begin Patch\n*** Update File: b.bin\n-a\n*** End Patch",
			want:   []string{"binary"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.before)
			_, err := Apply(root, mustParse(t, tc.patch), Options{})
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
			if !strings.Contains(err.Error(), "No files were changed") {
				t.Errorf("error does not say nothing changed:\n%v", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(err, %v) = false", tc.is)
			}
			if tc.before == nil {
				tc.before = map[string]string{}
			}
			assertTree(t, root, tc.before)
		})
	}
}
