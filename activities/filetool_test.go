package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/harness"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func runTool(t *testing.T, a *Activities, cwd, call string, inv harness.Invocation) *FileToolOutput {
	t.Helper()
	out, err := a.FileTool(context.Background(), FileToolInput{ThreadID: "th", CallID: call, Cwd: cwd, Inv: inv})
	require.NoError(t, err)
	return out
}

func TestFileToolRead(t *testing.T) {
	a := newActs(t)
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, "line "+string(rune('0'+i%10)))
	}
	writeFiles(t, dir, map[string]string{"a.txt": strings.Join(lines, "\n") + "\n", "bin": "a\x00b", "empty": "", "sub/x": "x"})

	out := runTool(t, a, dir, "c1", harness.Invocation{Tool: harness.ToolRead, Path: "a.txt"})
	require.True(t, out.Success)
	require.Equal(t, "     1\tline 1\n", strings.SplitAfter(out.Output, "\n")[0])
	require.Contains(t, out.Output, "    10\tline 0\n")
	require.NotContains(t, out.Output, "[lines")

	out = runTool(t, a, dir, "c2", harness.Invocation{Tool: harness.ToolRead, Path: filepath.Join(dir, "a.txt"), Offset: 3, Limit: 2})
	require.Equal(t, "     3\tline 3\n     4\tline 4\n[lines 3-4 of 10; read more with an offset]\n", out.Output)

	out = runTool(t, a, dir, "c3", harness.Invocation{Tool: harness.ToolRead, Path: "a.txt", Offset: -2})
	require.Equal(t, "     9\tline 9\n    10\tline 0\n[lines 9-10 of 10; read more with an offset]\n", out.Output)

	for name, want := range map[string]string{
		"bin":     "binary file",
		"empty":   "is empty",
		"missing": "no such file",
		"sub":     "is a directory",
	} {
		out = runTool(t, a, dir, "c-"+name, harness.Invocation{Tool: harness.ToolRead, Path: name})
		require.Contains(t, out.Output, want, name)
	}
	out = runTool(t, a, dir, "c4", harness.Invocation{Tool: harness.ToolRead, Path: "a.txt", Offset: 50})
	require.False(t, out.Success)
	require.Contains(t, out.Output, "past the end")
}

func TestFileToolWriteAndEdit(t *testing.T) {
	a := newActs(t)
	dir := t.TempDir()

	out := runTool(t, a, dir, "w1", harness.Invocation{Tool: harness.ToolWrite, Path: "new/dir/f.go", Content: "package f\n\nfunc A() int { return 1 }\n"})
	require.True(t, out.Success, out.Output)
	require.Equal(t, []FileChange{{Path: "new/dir/f.go", Kind: "add"}}, out.Changes)
	b, _ := os.ReadFile(filepath.Join(dir, "new/dir/f.go"))
	require.Equal(t, "package f\n\nfunc A() int { return 1 }\n", string(b))

	out = runTool(t, a, dir, "w2", harness.Invocation{Tool: harness.ToolWrite, Path: "new/dir/f.go", Content: "// end\n", Append: true})
	require.True(t, out.Success)
	require.Equal(t, "update", out.Changes[0].Kind)
	b, _ = os.ReadFile(filepath.Join(dir, "new/dir/f.go"))
	require.True(t, strings.HasSuffix(string(b), "}\n// end\n"))

	edit := func(call string, edits ...harness.Edit) *FileToolOutput {
		return runTool(t, a, dir, call, harness.Invocation{Tool: harness.ToolEdit, Path: "new/dir/f.go", Edits: edits})
	}
	out = edit("e1", harness.Edit{Old: "return 1", New: "return 2"})
	require.True(t, out.Success, out.Output)
	require.Contains(t, out.Output, "1 replacement")
	require.Contains(t, out.Output, "func A() int { return 2 }")

	out = edit("e2", harness.Edit{Old: "nope", New: "x"})
	require.False(t, out.Success)
	require.Contains(t, out.Output, "not found")

	writeFiles(t, dir, map[string]string{"dup.txt": "a a a\n"})
	out = runTool(t, a, dir, "e3", harness.Invocation{Tool: harness.ToolEdit, Path: "dup.txt", Edits: []harness.Edit{{Old: "a", New: "b"}}})
	require.False(t, out.Success)
	require.Contains(t, out.Output, "occurs 3 times")
	out = runTool(t, a, dir, "e4", harness.Invocation{Tool: harness.ToolEdit, Path: "dup.txt", Edits: []harness.Edit{{Old: "a", New: "b", All: true}}})
	require.True(t, out.Success)
	b, _ = os.ReadFile(filepath.Join(dir, "dup.txt"))
	require.Equal(t, "b b b\n", string(b))

	// All or nothing: the second edit fails, the first is not applied.
	out = runTool(t, a, dir, "e5", harness.Invocation{Tool: harness.ToolEdit, Path: "dup.txt", Edits: []harness.Edit{{Old: "b b", New: "c"}, {Old: "zzz", New: "y"}}})
	require.False(t, out.Success)
	require.Contains(t, out.Output, "edit 2:")
	b, _ = os.ReadFile(filepath.Join(dir, "dup.txt"))
	require.Equal(t, "b b b\n", string(b))

	out = runTool(t, a, dir, "e6", harness.Invocation{Tool: harness.ToolEdit, Path: "created.txt", Edits: []harness.Edit{{Old: "", New: "hello\n"}}})
	require.True(t, out.Success, out.Output)
	b, _ = os.ReadFile(filepath.Join(dir, "created.txt"))
	require.Equal(t, "hello\n", string(b))

	out = runTool(t, a, dir, "e7", harness.Invocation{Tool: harness.ToolEdit, Path: "absent.txt", Edits: []harness.Edit{{Old: "x", New: "y"}}})
	require.False(t, out.Success)
	require.Contains(t, out.Output, "no such file")
}

// A retried edit (the worker died after editing, before reporting) returns
// the recorded outcome instead of editing again, and finishes a staged
// write that had not been renamed into place yet.
func TestFileToolEditIsIdempotent(t *testing.T) {
	a := newActs(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "count = 1\n"})
	inv := harness.Invocation{Tool: harness.ToolEdit, Path: "f.txt", Edits: []harness.Edit{{Old: "count = 1", New: "count = 1 + 1"}}}
	first := runTool(t, a, dir, "same", inv)
	require.True(t, first.Success)
	again := runTool(t, a, dir, "same", inv)
	require.Equal(t, first, again)
	b, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
	require.Equal(t, "count = 1 + 1\n", string(b), "edited once")

	// A crash between recording and renaming: the staged file is still
	// there; the retry puts it in place.
	inv2 := harness.Invocation{Tool: harness.ToolWrite, Path: "g.txt", Content: "new\n"}
	out := runTool(t, a, dir, "w", inv2)
	require.True(t, out.Success)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.txt"), []byte("old\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.txt.interpreter-w.tmp"), []byte("new\n"), 0o644))
	again = runTool(t, a, dir, "w", inv2)
	require.Equal(t, out, again)
	b, _ = os.ReadFile(filepath.Join(dir, "g.txt"))
	require.Equal(t, "new\n", string(b))
	_, err := os.Stat(filepath.Join(dir, "g.txt.interpreter-w.tmp"))
	require.True(t, os.IsNotExist(err))
}

func TestFileToolListGlobGrep(t *testing.T) {
	a := newActs(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.go":             "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
		"README.md":           "# hello\n",
		"pkg/a/a.go":          "package a\n// hello from a\n",
		"pkg/a/a_test.go":     "package a\n",
		"pkg/b/b.ts":          "export const hello = 1\n",
		".git/config":         "hello\n",
		"node_modules/x.js":   "hello\n",
		"pkg/b/data.bin":      "hello\x00",
		"docs/guide/intro.md": "Intro\n",
	})

	out := runTool(t, a, dir, "l", harness.Invocation{Tool: harness.ToolList})
	require.True(t, out.Success)
	require.Contains(t, out.Output, ".git/\ndocs/\nnode_modules/\npkg/\nREADME.md\nmain.go\n")
	out = runTool(t, a, dir, "l2", harness.Invocation{Tool: harness.ToolList, Path: "pkg", Ignore: []string{"b"}})
	require.Contains(t, out.Output, "a/\n")
	require.NotContains(t, out.Output, "b/")

	glob := func(pattern, path string) string {
		return runTool(t, a, dir, "g", harness.Invocation{Tool: harness.ToolGlob, Pattern: pattern, Path: path}).Output
	}
	require.Equal(t, "pkg/a/a.go\npkg/a/a_test.go\n", glob("**/*.go", "pkg"))
	require.Equal(t, "main.go\npkg/a/a.go\npkg/a/a_test.go\n", glob("**/*.go", ""))
	require.Equal(t, "main.go\n", glob("*.go", ""))
	require.Equal(t, "README.md\ndocs/guide/intro.md\npkg/b/b.ts\n", glob("**/*.{md,ts}", ""))
	require.Equal(t, "pkg/a/a.go\n", glob(filepath.Join(dir, "pkg/*/a.go"), ""))
	require.Contains(t, glob("*.rs", ""), "No files match")

	grep := func(inv harness.Invocation) string {
		inv.Tool = harness.ToolGrep
		return runTool(t, a, dir, "r", inv).Output
	}
	require.Equal(t, "README.md\npkg/a/a.go\npkg/b/b.ts\n", grep(harness.Invocation{Pattern: "hello", OutputMode: harness.GrepFiles}))
	require.Equal(t, "README.md\nmain.go\npkg/a/a.go\npkg/b/b.ts\n", grep(harness.Invocation{Pattern: "hello", OutputMode: harness.GrepFiles, IgnoreCase: true}))
	require.Equal(t, "pkg/a/a.go:2:// hello from a\n", grep(harness.Invocation{Pattern: "hello", Include: "*.go"}))
	require.Equal(t, "pkg/a/a.go:1\n", grep(harness.Invocation{Pattern: "hello", Path: "pkg/a", OutputMode: harness.GrepCount}))
	require.Equal(t, "main.go-3-func main() {\nmain.go:4:\tprintln(\"Hello\")\nmain.go-5-}\n", grep(harness.Invocation{Pattern: "Hello", Path: "main.go", Context: 1}))
	require.Contains(t, grep(harness.Invocation{Pattern: "("}), "bad regular expression")
	require.Contains(t, grep(harness.Invocation{Pattern: "zzz"}), "No matches")
	require.Equal(t, "README.md:1:# hello\n[... 2 more results; narrow the search or page with an offset]\n", grep(harness.Invocation{Pattern: "hello", Limit: 1}))
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "x/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"src/**", "src/a/b", true},
		{"src/**/test_*.py", "src/test_a.py", true},
		{"src/**/test_*.py", "src/x/test_a.py", true},
		{"src/**/test_*.py", "lib/test_a.py", false},
		{"*.{js,ts}", "a.ts", true},
		{"*.{js,ts}", "a.py", false},
		{"a?c", "abc", true},
		{"[ab].txt", "b.txt", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, MatchGlob(c.pattern, c.name), "%s vs %s", c.pattern, c.name)
	}
}

func TestFileToolStartup(t *testing.T) {
	a := newActs(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"b.txt": "", "a/x": "", ".hidden": ""})
	out := runTool(t, a, dir, "s", harness.Invocation{Tool: ToolStartup})
	require.NotNil(t, out.Startup)
	require.Equal(t, dir+"/\n├── a/\n└── b.txt", out.Startup.Listing)
	require.NotEmpty(t, out.Startup.OS)
}
