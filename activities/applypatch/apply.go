// Package applypatch owns the "*** Begin Patch" file-editing format of
// OpenAI Codex's apply_patch tool: parsing patch text (Parse), locating
// hunks in files with Codex-style lenient matching, computing new file
// contents and per-file unified diffs without touching the disk
// (Preview), and writing every change of a patch atomically under a root
// directory (Apply).
//
// Behaviour worth knowing:
//
//   - Paths are relative to the root. Absolute paths, paths that climb
//     out with "..", and paths that leave the root through a symlinked
//     parent directory are rejected. A path whose last component is a
//     symlink is rejected too (patch the link's target instead).
//   - Operations run in patch order against an in-memory view, so a patch
//     may Delete a file and Add it again, or Update the same file twice.
//   - "*** Add File" refuses to overwrite an existing file, and
//     "*** Move to" refuses an existing destination (Codex overwrites in
//     both cases); the error tells the model what to do instead.
//   - "*** Update File" with "*** Move to" and no hunks is a pure rename.
//   - Hunks are located in file order with decreasing strictness: exact,
//     ignoring trailing whitespace, ignoring surrounding whitespace, then
//     also mapping Unicode dashes, quotes and spaces to ASCII. Context lines
//     keep the file's own text; only added lines come from the patch.
//   - A hunk with only added lines is inserted right after its "@@" header
//     line, or appended at the end of the file when it has no header.
//   - An updated file always ends with a newline; files that used CRLF
//     throughout keep CRLF.
//   - Atomicity: everything is computed and checked (including the
//     Guard) before the first write; each file is replaced by writing a
//     temporary file in the same directory and renaming it; if a write
//     fails, files already written are restored from in-memory copies and
//     directories created for new files are removed.
//   - Re-applying an Update patch that already succeeded fails cleanly
//     (its removed lines are no longer found) and changes nothing;
//     re-applying an Add fails with "file already exists".
package applypatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Change describes what one file operation of a patch does.
type Change struct {
	Path     string // the operation's path, cleaned, slash-separated
	Kind     string // "add", "delete" or "update"
	MovePath string // for a moved update: the destination path
	Diff     string // unified diff of this operation's change
}

// Result lists the changes of a patch in patch order.
type Result struct {
	Changes []Change
	// Summary has one line per operation in the style of `git status
	// --short`: "A new.txt", "M src/main.py" (a moved file is listed under
	// its destination), "D old.txt".
	Summary string
}

// Options configure Apply.
type Options struct {
	// Guard, if set, is called with the absolute path of every file that
	// will be written or removed (after cleaning ".." and resolving
	// symlinks of its existing parent directories), before anything is
	// written. A non-nil error aborts the whole patch.
	Guard func(absPath string) error
}

// Preview computes the changes and diffs of p against the files under
// root without writing anything. It fails exactly when Apply would fail
// before writing (the Guard aside).
func Preview(root string, p *Patch) (*Result, error) {
	pl, err := plan(root, p)
	if err != nil {
		return nil, err
	}
	return pl.result, nil
}

// Apply applies p to the files under root, all or nothing. On error the
// files are as they were (see the package documentation).
func Apply(root string, p *Patch, opts Options) (*Result, error) {
	pl, err := plan(root, p)
	if err != nil {
		return nil, fmt.Errorf("%w\nNo files were changed", err)
	}
	if opts.Guard != nil {
		for _, f := range pl.order {
			if !f.changed() {
				continue
			}
			if err := opts.Guard(f.abs); err != nil {
				return nil, fmt.Errorf("%s: not allowed: %w\nNo files were changed", f.rel, err)
			}
		}
	}
	if err := pl.commit(); err != nil {
		return nil, err
	}
	return pl.result, nil
}

// fileState is the in-memory view of one file while a patch is planned.
type fileState struct {
	rel, abs   string
	isDir      bool
	origExists bool
	orig       string
	origMode   fs.FileMode
	exists     bool
	content    string
	mode       fs.FileMode
}

func (f *fileState) changed() bool {
	return f.exists != f.origExists || (f.exists && f.content != f.orig)
}

type planner struct {
	root   string // absolute, symlinks resolved
	files  map[string]*fileState
	order  []*fileState
	result *Result
}

func plan(root string, p *Patch) (*planner, error) {
	if p == nil || len(p.Hunks) == 0 {
		return nil, errors.New("empty patch: no file operations")
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("working directory %q: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return nil, fmt.Errorf("working directory %q: %w", root, err)
	}
	pl := &planner{root: realRoot, files: map[string]*fileState{}, result: &Result{}}
	var summary []string
	for _, op := range p.Hunks {
		ch, err := pl.do(op)
		if err != nil {
			return nil, err
		}
		pl.result.Changes = append(pl.result.Changes, ch)
		letter, shown := strings.ToUpper(ch.Kind[:1]), ch.Path
		if ch.Kind == "update" {
			letter = "M"
			if ch.MovePath != "" {
				shown = ch.MovePath
			}
		}
		summary = append(summary, letter+" "+shown)
	}
	pl.result.Summary = strings.Join(summary, "\n")
	return pl, nil
}

// do applies one operation to the in-memory view.
func (pl *planner) do(op FileOp) (Change, error) {
	ch := Change{Kind: op.Kind.String()}
	name := func(kind string) string { return fmt.Sprintf("%s File %q", kind, op.Path) }
	f, err := pl.file(op.Path)
	if err != nil {
		return ch, err
	}
	ch.Path = f.rel
	if f.isDir {
		return ch, fmt.Errorf("%s: %s is a directory, not a file", name(strings.ToUpper(ch.Kind[:1])+ch.Kind[1:]), f.rel)
	}
	switch op.Kind {
	case OpAdd:
		if f.exists {
			return ch, &fsError{fmt.Sprintf("%s: file already exists; use '*** Update File' to change it, or '*** Delete File' followed by '*** Add File' to replace it", name("Add")), fs.ErrExist}
		}
		ch.Diff = unifiedDiff("/dev/null", "b/"+f.rel, "", op.Contents)
		f.exists, f.content = true, op.Contents
		if !f.origExists {
			f.mode = 0o644
		}
	case OpDelete:
		if !f.exists {
			return ch, &fsError{name("Delete") + ": file not found", fs.ErrNotExist}
		}
		ch.Diff = unifiedDiff("a/"+f.rel, "/dev/null", f.content, "")
		f.exists, f.content = false, ""
	case OpUpdate:
		if !f.exists {
			return ch, &fsError{name("Update") + ": file not found; use '*** Add File' to create it", fs.ErrNotExist}
		}
		if strings.IndexByte(f.content, 0) >= 0 {
			return ch, fmt.Errorf("%s: the file looks binary (contains NUL bytes); only text files can be patched", name("Update"))
		}
		updated := f.content
		if len(op.Chunks) > 0 {
			if updated, err = applyChunks(f.rel, f.content, op.Chunks); err != nil {
				return ch, err
			}
		}
		dst := f
		if op.MoveTo != "" {
			if dst, err = pl.file(op.MoveTo); err != nil {
				return ch, err
			}
		}
		if dst == f {
			ch.Diff = unifiedDiff("a/"+f.rel, "b/"+f.rel, f.content, updated)
			f.content = updated
			break
		}
		ch.MovePath = dst.rel
		if dst.isDir {
			return ch, fmt.Errorf("%s: cannot move to %s: it is a directory", name("Update"), dst.rel)
		}
		if dst.exists {
			return ch, &fsError{fmt.Sprintf("%s: cannot move to %s: destination already exists", name("Update"), dst.rel), fs.ErrExist}
		}
		ch.Diff = unifiedDiff("a/"+f.rel, "b/"+dst.rel, f.content, updated)
		dst.exists, dst.content = true, updated
		if !dst.origExists {
			dst.mode = f.mode
		}
		f.exists, f.content = false, ""
	default:
		return ch, fmt.Errorf("file operation on %q has unknown kind %d", op.Path, int(op.Kind))
	}
	return ch, nil
}

// fsError is an error message that matches fs.ErrExist or fs.ErrNotExist
// under errors.Is.
type fsError struct {
	msg  string
	kind error
}

func (e *fsError) Error() string { return e.msg }
func (e *fsError) Unwrap() error { return e.kind }

// file returns the state for a patch path, resolving it and reading the
// file on first use.
func (pl *planner) file(p string) (*fileState, error) {
	if err := checkRelPath(p); err != nil {
		return nil, err
	}
	rel := filepath.Clean(filepath.FromSlash(p))
	abs, err := pl.resolve(rel)
	if err != nil {
		return nil, err
	}
	if f, ok := pl.files[abs]; ok {
		return f, nil
	}
	f := &fileState{rel: filepath.ToSlash(rel), abs: abs}
	info, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", f.rel, err)
	case info.IsDir():
		f.isDir = true
	case info.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(abs)
		return nil, fmt.Errorf("%s is a symbolic link (to %q); patch the file it points to instead", f.rel, target)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", f.rel)
	default:
		data, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.rel, err)
		}
		f.origExists, f.orig, f.origMode = true, string(data), info.Mode().Perm()
		f.exists, f.content, f.mode = true, f.orig, f.origMode
	}
	pl.files[abs] = f
	pl.order = append(pl.order, f)
	return f, nil
}

// resolve maps a cleaned relative path to an absolute one whose existing
// parent directories have their symlinks resolved, and checks that it
// stays inside the root.
func (pl *planner) resolve(rel string) (string, error) {
	joined := filepath.Join(pl.root, rel)
	dir := filepath.Dir(joined)
	var rest []string
	for {
		info, err := os.Lstat(dir)
		if err == nil {
			if info.Mode()&fs.ModeSymlink == 0 && !info.IsDir() {
				return "", fmt.Errorf("%s: parent %s is a file, not a directory", filepath.ToSlash(rel), dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = parent
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
	}
	if info, err := os.Stat(realDir); err == nil && !info.IsDir() {
		return "", fmt.Errorf("%s: parent %s is not a directory", filepath.ToSlash(rel), dir)
	}
	abs := filepath.Join(append(append([]string{realDir}, rest...), filepath.Base(joined))...)
	if r, err := filepath.Rel(pl.root, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q resolves to %s, outside the working directory (through a symbolic link)", filepath.ToSlash(rel), abs)
	}
	return abs, nil
}

// beforeWrite lets tests inject a failure just before a file is written or removed.
var beforeWrite func(abs string) error

// commit writes the planned states, rolling back on the first failure.
func (pl *planner) commit() error {
	var done []*fileState
	var made []string // directories created, parents first
	for _, f := range pl.order {
		if !f.changed() {
			continue
		}
		err := func() error {
			if beforeWrite != nil {
				if err := beforeWrite(f.abs); err != nil {
					return err
				}
			}
			if !f.exists {
				return os.Remove(f.abs)
			}
			newDirs, err := mkdirs(filepath.Dir(f.abs))
			made = append(made, newDirs...)
			if err != nil {
				return err
			}
			return writeAtomic(f.abs, f.content, f.mode)
		}()
		if err != nil {
			msg := fmt.Sprintf("writing %s failed: %v", f.rel, err)
			if rerr := rollback(done, made); rerr != nil {
				return fmt.Errorf("%s; restoring the files changed so far ALSO failed, the tree may be partly patched: %v", msg, rerr)
			}
			return fmt.Errorf("%s\nThe files already written were restored; no files were changed", msg)
		}
		done = append(done, f)
	}
	return nil
}

func rollback(done []*fileState, made []string) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		f := done[i]
		var err error
		if f.origExists {
			err = writeAtomic(f.abs, f.orig, f.origMode)
		} else {
			err = os.Remove(f.abs)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("%s: %w", f.rel, err))
		}
	}
	for i := len(made) - 1; i >= 0; i-- {
		_ = os.Remove(made[i]) // only succeeds if empty, which is what we want
	}
	return errors.Join(errs...)
}

// mkdirs creates dir and missing parents, returning those it created
// (parents first), even on error.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for _, d := range missing {
		err := os.Mkdir(d, 0o755)
		if err == nil {
			made = append(made, d)
		} else if !errors.Is(err, fs.ErrExist) {
			return made, err
		}
	}
	return made, nil
}

// writeAtomic replaces path by a temporary file written beside it.
func writeAtomic(path, content string, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".applypatch-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.WriteString(content)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, mode)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
