package activities

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

// Which files a turn finds, in which order, and how the bound cuts them.
func TestReadProjectDocs(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		cwd   string
		req   DocsRequest
		want  []string // paths relative to the temp dir
		note  string
	}{
		{"repository root down to cwd, global first",
			map[string]string{"repo/.git/HEAD": "", "repo/AGENTS.md": "root\n", "repo/sub/AGENTS.md": "sub\n", "ihome/AGENTS.md": "mine\n", "AGENTS.md": "above the repo\n"},
			"repo/sub", DocsRequest{Files: harness.CodexDocFiles}, []string{"ihome/AGENTS.md", "repo/AGENTS.md", "repo/sub/AGENTS.md"}, ""},
		{"override wins, in the home and in a directory",
			map[string]string{"repo/.git": "gitdir: elsewhere", "repo/AGENTS.md": "root", "repo/AGENTS.override.md": "override", "ihome/AGENTS.md": "a", "ihome/AGENTS.override.md": "b"},
			"repo", DocsRequest{Files: harness.CodexDocFiles}, []string{"ihome/AGENTS.override.md", "repo/AGENTS.override.md"}, ""},
		{"outside a repository only cwd",
			map[string]string{"a/AGENTS.md": "parent", "a/b/AGENTS.md": "here"},
			"a/b", DocsRequest{Files: harness.CodexDocFiles}, []string{"a/b/AGENTS.md"}, ""},
		{"fallback names where no AGENTS.md is",
			map[string]string{"repo/.git/HEAD": "", "repo/AGENTS.md": "root", "repo/sub/CONTRIBUTING.md": "contrib"},
			"repo/sub", DocsRequest{Files: harness.CodexDocFiles, Fallback: []string{"CONTRIBUTING.md"}}, []string{"repo/AGENTS.md", "repo/sub/CONTRIBUTING.md"}, ""},
		{"another CLI's names",
			map[string]string{"repo/.git/HEAD": "", "repo/CLAUDE.md": "claude", "repo/AGENTS.md": "codex", "uhome/.claude/CLAUDE.md": "user"},
			"repo", DocsRequest{Files: harness.DocFiles{Names: []string{"CLAUDE.md"}, Global: []string{"~/.claude/CLAUDE.md"}}}, []string{"uhome/.claude/CLAUDE.md", "repo/CLAUDE.md"}, ""},
		{"the bound cuts the file that crosses it and drops the rest",
			map[string]string{"repo/.git/HEAD": "", "repo/AGENTS.md": strings.Repeat("r", 30), "repo/sub/AGENTS.md": strings.Repeat("s", 30), "repo/sub/x/AGENTS.md": "x"},
			"repo/sub/x", DocsRequest{Files: harness.CodexDocFiles, MaxBytes: 40}, []string{"repo/AGENTS.md", "repo/sub/AGENTS.md"}, "sub/AGENTS.md was cut"},
		{"a negative bound reads no project file",
			map[string]string{"repo/.git/HEAD": "", "repo/AGENTS.md": "root", "ihome/AGENTS.md": "mine"},
			"repo", DocsRequest{Files: harness.CodexDocFiles, MaxBytes: -1}, []string{"ihome/AGENTS.md"}, ""},
		{"empty files are skipped",
			map[string]string{"repo/.git/HEAD": "", "repo/AGENTS.md": "  \n"},
			"repo", DocsRequest{Files: harness.CodexDocFiles}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			for _, d := range []string{"ihome", "uhome", c.cwd} {
				_ = os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			out := ReadProjectDocs(filepath.Join(dir, c.cwd), filepath.Join(dir, "uhome"), filepath.Join(dir, "ihome"), c.req)
			var got []string
			for _, d := range out.Docs.Docs {
				rel, _ := filepath.Rel(dir, d.Path)
				got = append(got, rel)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("found %v, want %v", got, c.want)
			}
			if (c.note == "") != (out.Docs.Note == "") || !strings.Contains(out.Docs.Note, c.note) {
				t.Fatalf("note %q, want %q", out.Docs.Note, c.note)
			}
			if len(c.want) > 0 && out.Digest == "" {
				t.Fatal("no digest")
			}
			if c.req.MaxBytes > 0 {
				total := 0
				for _, d := range out.Docs.Docs {
					if !d.Global {
						total += len(d.Text)
					}
				}
				if total != c.req.MaxBytes {
					t.Fatalf("project files hold %d bytes, want exactly the bound %d", total, c.req.MaxBytes)
				}
			}
		})
	}
}

// A cut never splits a character, and an unreadable file is a warning.
func TestReadProjectDocsEdges(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "", "AGENTS.md": "ééééé"})
	out := ReadProjectDocs(dir, "", "", DocsRequest{Files: harness.CodexDocFiles, MaxBytes: 5})
	if len(out.Docs.Docs) != 1 || out.Docs.Docs[0].Text != "éé" {
		t.Fatalf("cut text %+v", out.Docs.Docs)
	}
	if err := os.Mkdir(filepath.Join(dir, "AGENTS.override.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = ReadProjectDocs(dir, "", "", DocsRequest{Files: harness.CodexDocFiles})
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "not a regular file") || len(out.Docs.Docs) != 1 {
		t.Fatalf("warnings %v docs %+v", out.Warnings, out.Docs.Docs)
	}
}
