package threads

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The front ends' code imports of this module only workflows and
// frontend/... (DESIGN.md): harness, activities, sandbox and worker types
// reach them through workflows. Test files may use the dev servers.
func TestFrontEndsImportWorkflowsOnly(t *testing.T) {
	const module = "github.com/interpreter-dev/interpreter/"
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			ours, ok := strings.CutPrefix(p, module)
			if ok && ours != "workflows" && !strings.HasPrefix(ours, "frontend/") {
				t.Errorf("%s imports %s: front ends import workflows and frontend/... only", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Only cmd/ imports a front end; elsewhere (integration and end-to-end
// tests included) frontend/threads is the one front-end package in use.
func TestOnlyCmdImportsFrontEnds(t *testing.T) {
	const module = "github.com/interpreter-dev/interpreter/"
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || rel == "cmd" || rel == "frontend") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if ours, ok := strings.CutPrefix(p, module+"frontend/"); ok && ours != "threads" {
				t.Errorf("%s imports %s: only cmd/ imports a front end", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
