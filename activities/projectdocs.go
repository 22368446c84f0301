package activities

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/interpreter-dev/interpreter/harness"
)

// DefaultProjectDocMaxBytes bounds the project's instructions files
// together (Codex's project_doc_max_bytes default).
const DefaultProjectDocMaxBytes = 32 << 10

// DocsRequest asks for a working directory's instructions files.
type DocsRequest struct {
	Files harness.DocFiles `json:"files"`
	// Fallback names are tried in a directory that has none of Files.Names
	// (project_doc_fallback_filenames).
	Fallback []string `json:"fallback,omitempty"`
	// MaxBytes bounds the project's files together (0: the default; a
	// negative value reads none of them).
	MaxBytes int `json:"max_bytes,omitempty"`
}

// DocsOutput is what was found, and a digest a thread compares with the
// files it showed last.
type DocsOutput struct {
	Docs   harness.ProjectDocs `json:"docs"`
	Digest string              `json:"digest,omitempty"`
	// Warnings name files that could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// ReadProjectDocs finds the instructions files of cwd: the user's global
// file, then one per directory from the repository root (the nearest
// directory above cwd holding .git; cwd itself outside a repository) down
// to cwd. The project's files share a byte bound: the file that crosses it
// is cut, the rest are left out, and a note says so. userHome resolves
// "~/", interpreterHome bare global names.
func ReadProjectDocs(cwd, userHome, interpreterHome string, req DocsRequest) DocsOutput {
	out := DocsOutput{Docs: harness.ProjectDocs{Cwd: cwd}}
	read := func(path string, limit int) (string, bool, bool) {
		text, cut, err := readBounded(path, limit)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				out.Warnings = append(out.Warnings, fmt.Sprintf("instructions file %s not read: %v", path, err))
			}
			return "", false, false
		}
		return text, cut, true
	}
	for _, g := range req.Files.Global {
		path := filepath.Join(interpreterHome, g)
		if rest, ok := strings.CutPrefix(g, "~/"); ok {
			path = filepath.Join(userHome, rest)
		}
		if userHome == "" && strings.HasPrefix(g, "~/") || interpreterHome == "" && !strings.HasPrefix(g, "~/") {
			continue
		}
		if text, _, ok := read(path, DefaultProjectDocMaxBytes); ok && strings.TrimSpace(text) != "" {
			out.Docs.Docs = append(out.Docs.Docs, harness.ProjectDoc{Path: path, Text: text, Global: true})
			break
		}
	}
	limit := req.MaxBytes
	if limit == 0 {
		limit = DefaultProjectDocMaxBytes
	}
	budget := limit
	names := append(append([]string{}, req.Files.Names...), req.Fallback...)
	for _, dir := range projectDirs(cwd) {
		if budget <= 0 {
			break
		}
		for _, name := range names {
			path := filepath.Join(dir, name)
			text, cut, ok := read(path, budget)
			if !ok {
				continue
			}
			if strings.TrimSpace(text) != "" {
				out.Docs.Docs = append(out.Docs.Docs, harness.ProjectDoc{Path: path, Text: text})
				budget -= len(text)
			}
			if cut {
				out.Docs.Note = fmt.Sprintf("[%s was cut: the instructions files may take %d bytes together (project_doc_max_bytes); the rest of it, and any files in directories below, were not read]",
					path, limit)
				budget = 0
			}
			break
		}
	}
	if len(out.Docs.Docs) > 0 {
		h := sha256.New()
		for _, d := range out.Docs.Docs {
			fmt.Fprintf(h, "%s\x00%d\x00%s\x00", d.Path, len(d.Text), d.Text)
		}
		h.Write([]byte(out.Docs.Note))
		out.Digest = hex.EncodeToString(h.Sum(nil))[:16]
	}
	return out
}

// projectDirs lists the directories from the repository root down to cwd
// (only cwd outside a repository).
func projectDirs(cwd string) []string {
	cwd = filepath.Clean(cwd)
	dirs := []string{cwd}
	for d := cwd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{cwd}
		}
		d = parent
		dirs = append([]string{d}, dirs...)
	}
}

// readBounded reads at most limit bytes of a regular file, cut back to a
// whole UTF-8 character; cut reports that there was more.
func readBounded(path string, limit int) (text string, cut bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if !st.Mode().IsRegular() {
		return "", false, fmt.Errorf("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", false, err
	}
	if len(b) <= limit {
		return string(b), false, nil
	}
	b = b[:limit]
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1] // a character cut in half
	}
	return string(b), true, nil
}
