package applypatch

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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

func TestApplyIsAtomicWhenAnOpFails(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "b.txt": "b\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: newdir/c.txt\n+c\n*** Update File: b.txt\n-zzz\n+b\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err == nil || !strings.Contains(err.Error(), `Update File "b.txt": hunk 1`) {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories created: %v", dirs)
	}
}

func TestApplyRollsBackWhenAWriteFails(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Delete File: d.txt\n*** Add File: x/y/new.txt\n+n\n*** Update File: b.txt\n-b\n+B\n*** End Patch")
	beforeWrite = func(abs string) error {
		if filepath.Base(abs) == "b.txt" {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { beforeWrite = nil }()
	_, err := Apply(root, p, Options{})
	if err == nil || !strings.Contains(err.Error(), "writing b.txt failed: disk full") || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories left behind: %v", dirs)
	}
}

func TestApplyRejectsEscapes(t *testing.T) {
	outside := t.TempDir()
	root := writeTree(t, map[string]string{"in.txt": "x\n"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink(filepath.Join(root, "in.txt"), filepath.Join(root, "filelink")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"dot-dot":          "escapes the working directory",
		"symlinked parent": "outside the working directory",
		"symlink file":     "is a symbolic link",
	}
	ops := map[string]FileOp{
		"dot-dot":          {Kind: OpAdd, Path: "a/../../evil.txt", Contents: "x\n"},
		"symlinked parent": {Kind: OpAdd, Path: "link/evil.txt", Contents: "x\n"},
		"symlink file":     {Kind: OpDelete, Path: "filelink"},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Apply(root, &Patch{Hunks: []FileOp{ops[name]}}, Options{})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
			if got := readTree(t, outside); len(got) != 0 {
				t.Errorf("wrote outside the root: %v", got)
			}
		})
	}
	// The same escape is refused by Parse, too.
	if _, err := Parse("*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch"); err == nil {
		t.Error("Parse accepted ../evil.txt")
	}
}

func TestGuard(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "secret/k.txt": "k\n"}
	root := writeTree(t, before)
	realRoot, _ := filepath.EvalSymlinks(root)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: n.txt\n+n\n*** Delete File: secret/k.txt\n*** End Patch")
	var seen []string
	guard := func(abs string) error {
		seen = append(seen, abs)
		if strings.Contains(abs, "secret") {
			return errors.New("protected path")
		}
		return nil
	}
	_, err := Apply(root, p, Options{Guard: guard})
	if err == nil || !strings.Contains(err.Error(), "secret/k.txt: not allowed: protected path") {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	want := []string{filepath.Join(realRoot, "a.txt"), filepath.Join(realRoot, "n.txt"), filepath.Join(realRoot, "secret", "k.txt")}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("guard saw %v, want %v", seen, want)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "d.txt": "d\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n-a\n+b\n*** Delete File: d.txt\n*** Add File: n/new.txt\n+n\n*** End Patch")
	res, err := Preview(root, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "M sub/b.txt\nD d.txt\nA n/new.txt" {
		t.Errorf("Summary = %q", res.Summary)
	}
	if !strings.Contains(res.Changes[0].Diff, "-a\n+b\n") {
		t.Errorf("diff = %q", res.Changes[0].Diff)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories created: %v", dirs)
	}
}

func TestReapplyUpdateFailsCleanly(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "x\ny\n"})
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n x\n-y\n+z\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(root, p, Options{}); err == nil || !strings.Contains(err.Error(), "could not find the expected lines") {
		t.Fatalf("second apply: %v", err)
	}
	assertTree(t, root, map[string]string{"a.txt": "x\nz\n"})
}

func TestApplyKeepsFileMode(t *testing.T) {
	root := writeTree(t, map[string]string{"run.sh": "echo a\n"})
	full := filepath.Join(root, "run.sh")
	if err := os.Chmod(full, 0o755); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, "*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", info.Mode().Perm())
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20"
	b := "1\n2\nTWO-B\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n20\n"
	got := unifiedDiff("a/f", "b/f", a, b)
	want := "--- a/f\n+++ b/f\n" +
		"@@ -1,5 +1,6 @@\n 1\n 2\n+TWO-B\n 3\n 4\n 5\n" +
		"@@ -16,5 +17,4 @@\n 16\n 17\n 18\n-19\n-20\n\\ No newline at end of file\n+20\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if d := unifiedDiff("a/f", "b/f", "x\n", "x\n"); d != "" {
		t.Errorf("equal inputs gave %q", d)
	}
	// The edit script must reproduce both sides for a messy input.
	x := strings.Split("a b c a b b a c d e f a", " ")
	y := strings.Split("c b a b a c e d a f", " ")
	var gotA, gotB []string
	for _, e := range diffLines(x, y) {
		if e.op != '+' {
			gotA = append(gotA, e.text)
		}
		if e.op != '-' {
			gotB = append(gotB, e.text)
		}
	}
	if strings.Join(gotA, " ") != strings.Join(x, " ") || strings.Join(gotB, " ") != strings.Join(y, " ") {
		t.Errorf("edit script does not rebuild inputs: %v / %v", gotA, gotB)
	}
}

func TestDiffLinesRebuildsInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n, alphabet int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + rng.IntN(alphabet)))
		}
		return out
	}
	check := func(a, b []string) {
		var gotA, gotB []string
		for _, e := range diffLines(a, b) {
			if e.op != '+' {
				gotA = append(gotA, e.text)
			}
			if e.op != '-' {
				gotB = append(gotB, e.text)
			}
		}
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
			t.Fatalf("edit script does not rebuild inputs\na=%v\nb=%v", a, b)
		}
	}
	for range 300 {
		check(gen(rng.IntN(30), 4), gen(rng.IntN(30), 4))
	}
	// Past maxEditCost the middle is replaced wholesale; still correct.
	check(gen(3000, 26), gen(3000, 26))
}
