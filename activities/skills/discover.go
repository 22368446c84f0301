package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// The listing is part of every model request (and of every model call's
// input in history): MaxSkills bounds the skills offered in one turn and
// MaxListingBytes their names, descriptions and paths together. Skills
// past either bound are skipped with a warning.
const (
	MaxSkills       = 100
	MaxListingBytes = 32 << 10
)

// maxOpenAIYAML bounds the size of an agents/openai.yaml.
const maxOpenAIYAML = 256 << 10

// Options say where to look.
type Options struct {
	// Cwd is the thread's working directory (absolute). Its
	// `.agents/skills` and those of its parents up to the repository root
	// (the first directory holding `.git`) are searched, nearest first;
	// outside a repository only Cwd's.
	Cwd string
	// UserHome holds the user's skills in `.agents/skills` ("" for none).
	UserHome string
	// Bundled holds the bundled skills, one folder each; they are written
	// under BundledDir so the model can read them like any file.
	Bundled    fs.FS
	BundledDir string
	Settings   Settings
	// Kind is the kind of run asking ([Kinds]; "" is main): a skill whose
	// ankole-runtime the kind does not see ([Visible]) is not offered, as
	// if it were not there (another skill may take its name).
	Kind string
}

// Result is what a turn offers.
type Result struct {
	// Skills are the enabled skills, in precedence order.
	Skills []Skill `json:"skills,omitempty"`
	// Disabled are the skills the settings turned off.
	Disabled []Skill `json:"disabled,omitempty"`
	// Warnings are skills skipped because of a bad SKILL.md or
	// openai.yaml.
	Warnings []Warning `json:"warnings,omitempty"`
	// Hidden are the enabled skills whose ankole-runtime this kind of run
	// does not see.
	Hidden []Skill `json:"hidden,omitempty"`
	// Shadowed are the skills of a name an earlier folder's skill took.
	Shadowed []Shadow `json:"shadowed,omitempty"`
}

// Shadow is a skill not offered because an earlier folder has one of its
// name.
type Shadow struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// By is the SKILL.md of the skill that took the name.
	By string `json:"by"`
}

type root struct{ dir, scope string }

// roots lists the folders searched, in precedence order.
func roots(o Options) []root {
	var rs []root
	if o.Cwd != "" {
		for _, d := range repoDirs(o.Cwd) {
			rs = append(rs, root{filepath.Join(d, ".agents", "skills"), ScopeRepo})
		}
	}
	if o.UserHome != "" {
		rs = append(rs, root{filepath.Join(o.UserHome, ".agents", "skills"), ScopeUser})
	}
	if o.Bundled != nil && o.BundledDir != "" && !o.Settings.NoBundled {
		rs = append(rs, root{o.BundledDir, ScopeBundled})
	}
	return rs
}

// repoDirs are cwd and its parents up to the repository root; just cwd
// outside a repository.
func repoDirs(cwd string) []string {
	cwd = filepath.Clean(cwd)
	var dirs []string
	for d := cwd; ; {
		dirs = append(dirs, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{cwd}
		}
		d = parent
	}
}

// Discover finds the skills: repository, then user, then bundled; the
// first enabled skill of a name wins (also when it is then skipped for a
// bad openai.yaml: no other skill takes its name silently); the later ones
// are listed as shadowed. Only the skills the kind of run sees count
// (Options.Kind); the others are listed as hidden. A skill with a bad
// SKILL.md or openai.yaml is skipped with a warning; a disabled skill's
// openai.yaml is not read.
func Discover(o Options) Result {
	var res Result
	if o.Bundled != nil && o.BundledDir != "" && !o.Settings.NoBundled {
		if err := WriteBundled(o.Bundled, o.BundledDir); err != nil {
			res.Warnings = append(res.Warnings, Warning{Path: o.BundledDir, Message: "bundled skills unavailable: " + err.Error()})
		}
	}
	seen := map[string]string{} // name → the SKILL.md that took it
	listed := 0
	for _, r := range roots(o) {
		entries, err := os.ReadDir(r.dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				res.Warnings = append(res.Warnings, Warning{Path: r.dir, Message: "cannot read the skills folder: " + err.Error()})
			}
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			file := filepath.Join(r.dir, e.Name(), FileName)
			if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
				continue // not a skill folder
			}
			fm, err := readFrontmatter(file)
			if err != nil {
				res.Warnings = append(res.Warnings, Warning{Path: file, Message: err.Error()})
				continue
			}
			s := Skill{Name: fm.Name, Description: fm.Description, Path: file, Scope: r.scope, Runtime: fm.Runtime}
			if s.Runtime == "" {
				s.Runtime = RuntimeAny
			}
			if !o.Settings.Enabled(s) {
				res.Disabled = append(res.Disabled, s)
				continue
			}
			if !Visible(s.Runtime, o.Kind) {
				res.Hidden = append(res.Hidden, s)
				continue
			}
			if by, ok := seen[s.Name]; ok {
				// An earlier folder's skill of that name wins.
				res.Shadowed = append(res.Shadowed, Shadow{Name: s.Name, Path: file, By: by})
				continue
			}
			seen[s.Name] = file // a skipped skill is not replaced by a later one of its name
			deps, err := readDependencies(filepath.Join(s.Dir(), filepath.FromSlash(DependenciesFile)))
			if err != nil {
				res.Warnings = append(res.Warnings, Warning{Skill: s.Name, Path: filepath.Join(s.Dir(), filepath.FromSlash(DependenciesFile)), Message: err.Error()})
				continue
			}
			s.Dependencies = deps
			size := len(s.Name) + len(s.Description) + len(s.Path)
			switch {
			case len(res.Skills) >= MaxSkills:
				res.Warnings = append(res.Warnings, Warning{Skill: s.Name, Path: file, Message: fmt.Sprintf("more than %d skills are enabled (disable some in [[skills.config]])", MaxSkills)})
				continue
			case listed+size > MaxListingBytes:
				res.Warnings = append(res.Warnings, Warning{Skill: s.Name, Path: file, Message: fmt.Sprintf("the skills listing would pass %d KB (shorten descriptions or disable skills in [[skills.config]])", MaxListingBytes>>10)})
				continue
			}
			listed += size
			res.Skills = append(res.Skills, s)
		}
	}
	return res
}

func readFrontmatter(file string) (Frontmatter, error) {
	f, err := os.Open(file)
	if err != nil {
		return Frontmatter{}, err
	}
	defer f.Close()
	return ParseFrontmatter(f)
}

func readDependencies(file string) ([]MCPDependency, error) {
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOpenAIYAML+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > maxOpenAIYAML {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, maxOpenAIYAML)
	}
	return ParseOpenAIYAML(file, data)
}

// WriteBundled copies the bundled skills into dir, rewriting only the
// files whose content changed (each through a rename, so a reader never
// sees half a file).
func WriteBundled(bundled fs.FS, dir string) error {
	return fs.WalkDir(bundled, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(bundled, p)
		if err != nil {
			return err
		}
		if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
			return nil
		}
		tmp, err := os.CreateTemp(filepath.Dir(dst), "."+path.Base(p)+".*")
		if err != nil {
			return err
		}
		if _, err := tmp.Write(data); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		return os.Rename(tmp.Name(), dst)
	})
}
