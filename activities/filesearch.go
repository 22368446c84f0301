package activities

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/interpreter-dev/interpreter/harness"
)

// The read-only file tools that look across the workspace: list, glob,
// grep, and the start-up context.

func listDir(ctx context.Context, in FileToolInput) *FileToolOutput {
	p := resolve(in.Cwd, in.Inv.Path)
	shown := display(in.Cwd, p)
	entries, err := os.ReadDir(p)
	if err != nil {
		return failed("cannot list %s: %s", shown, describeErr(err))
	}
	limit := in.Inv.Limit
	if limit <= 0 {
		limit = defaultListEntries
	}
	var names []string
	for _, e := range entries {
		if ignored(e.Name(), in.Inv.Ignore) {
			continue
		}
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.SliceStable(names, func(i, j int) bool {
		di, dj := strings.HasSuffix(names[i], "/"), strings.HasSuffix(names[j], "/")
		if di != dj {
			return di
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		return &FileToolOutput{Success: true, Output: fmt.Sprintf("%s is empty.", shown)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s):\n", shown, p)
	for i, n := range names {
		if i == limit {
			fmt.Fprintf(&b, "[... %d more entries]\n", len(names)-limit)
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return &FileToolOutput{Success: true, Output: bound(b.String(), in.MaxOutput)}
}

func ignored(name string, globs []string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func bound(s string, max int) string {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	return harness.Truncate(s, max)
}

// skipDir leaves out directories no search should descend into unless the
// search starts inside them.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".hg" || name == ".svn"
}

// walk visits the files under root (relative slash paths), heartbeating.
func walk(ctx context.Context, root string, visit func(rel, abs string, d fs.DirEntry) error) error {
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entries are skipped
		}
		if n++; n%500 == 0 {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if activity.IsActivity(ctx) {
				activity.RecordHeartbeat(ctx, n)
			}
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		return visit(filepath.ToSlash(rel), p, d)
	})
}

func globFiles(ctx context.Context, in FileToolInput) *FileToolOutput {
	if in.Inv.Pattern == "" {
		return failed("glob needs a pattern")
	}
	root := resolve(in.Cwd, in.Inv.Path)
	pattern := in.Inv.Pattern
	if filepath.IsAbs(pattern) {
		// An absolute pattern names its own root: split at the first
		// segment with a wildcard.
		dir, rest := splitGlobRoot(pattern)
		root, pattern = dir, rest
	}
	pattern = strings.TrimPrefix(pattern, "./")
	type hit struct {
		rel  string
		mod  time.Time
		show string
	}
	var hits []hit
	err := walk(ctx, root, func(rel, abs string, d fs.DirEntry) error {
		if MatchGlob(pattern, rel) {
			var mod time.Time
			if info, err := d.Info(); err == nil {
				mod = info.ModTime()
			}
			hits = append(hits, hit{rel, mod, display(in.Cwd, abs)})
		}
		return nil
	})
	if err != nil {
		return failed("cannot search %s: %s", display(in.Cwd, root), describeErr(err))
	}
	if len(hits) == 0 {
		return &FileToolOutput{Success: true, Output: fmt.Sprintf("No files match %s under %s.", in.Inv.Pattern, display(in.Cwd, root))}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].rel < hits[j].rel })
	limit := in.Inv.Limit
	if limit <= 0 {
		limit = defaultGlobResults
	}
	var b strings.Builder
	skip := max(in.Inv.Offset, 0)
	shown := 0
	for i := skip; i < len(hits) && shown < limit; i++ {
		b.WriteString(hits[i].show)
		b.WriteByte('\n')
		shown++
	}
	if rest := len(hits) - skip - shown; rest > 0 {
		fmt.Fprintf(&b, "[... %d more files; narrow the pattern]\n", rest)
	}
	return &FileToolOutput{Success: true, Output: bound(b.String(), in.MaxOutput)}
}

// splitGlobRoot splits an absolute glob into the directory before its first
// wildcard and the rest.
func splitGlobRoot(p string) (string, string) {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, s := range parts {
		if strings.ContainsAny(s, "*?[{") {
			return "/" + path.Join(parts[:i]...), strings.Join(parts[i:], "/")
		}
	}
	return filepath.Dir(p), filepath.Base(p)
}

// MatchGlob matches a slash-separated relative path against a glob with
// `*`, `?`, `[...]`, `{a,b}` and `**` (any number of directories).
func MatchGlob(pattern, name string) bool {
	for _, alt := range expandBraces(pattern) {
		if matchSegments(strings.Split(alt, "/"), strings.Split(name, "/")) {
			return true
		}
	}
	return false
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// expandBraces expands {a,b} alternatives (nested ones too).
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth := 0
	var parts []string
	last := open + 1
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts = append(parts, p[last:i])
				last = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, p[last:i])
				var out []string
				for _, part := range parts {
					out = append(out, expandBraces(p[:open]+part+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p} // unbalanced: taken literally
}

func grepFiles(ctx context.Context, in FileToolInput) *FileToolOutput {
	if in.Inv.Pattern == "" {
		return failed("grep needs a pattern")
	}
	expr := in.Inv.Pattern
	if in.Inv.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return failed("bad regular expression %q: %s", in.Inv.Pattern, err)
	}
	root := resolve(in.Cwd, in.Inv.Path)
	mode := in.Inv.OutputMode
	if mode == "" {
		mode = harness.GrepContent
	}
	limit := in.Inv.Limit
	if limit <= 0 {
		limit = defaultGrepResults
	}
	skip := max(in.Inv.Offset, 0)
	var lines []string
	more := 0
	emit := func(s string) {
		switch {
		case skip > 0:
			skip--
		case len(lines) < limit:
			lines = append(lines, s)
		default:
			more++
		}
	}
	search := func(rel, abs string) {
		if in.Inv.Include != "" && !includeMatch(in.Inv.Include, rel) {
			return
		}
		st, err := os.Stat(abs)
		if err != nil || st.Size() > maxGrepFileBytes {
			return
		}
		data, err := os.ReadFile(abs)
		if err != nil || isBinary(data) {
			return
		}
		shown := display(in.Cwd, abs)
		text := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		count := 0
		var show []int // line indexes to print, ascending
		c := max(in.Inv.Context, 0)
		for i, l := range text {
			if !re.MatchString(l) {
				continue
			}
			count++
			if mode != harness.GrepContent {
				continue
			}
			from := max(i-c, 0)
			if n := len(show); n > 0 && show[n-1] >= from {
				from = show[n-1] + 1
			}
			for j := from; j <= min(i+c, len(text)-1); j++ {
				show = append(show, j)
			}
		}
		for k, j := range show {
			if k > 0 && j != show[k-1]+1 {
				emit("--")
			}
			sep := "-"
			if re.MatchString(text[j]) {
				sep = ":"
			}
			emit(fmt.Sprintf("%s%s%d%s%s", shown, sep, j+1, sep, cut(text[j])))
		}
		switch {
		case count == 0:
		case mode == harness.GrepFiles:
			emit(shown)
		case mode == harness.GrepCount:
			emit(fmt.Sprintf("%s:%d", shown, count))
		}
	}
	st, err := os.Stat(root)
	if err != nil {
		return failed("cannot search %s: %s", display(in.Cwd, root), describeErr(err))
	}
	if !st.IsDir() {
		search(filepath.Base(root), root)
	} else if err := walk(ctx, root, func(rel, abs string, d fs.DirEntry) error {
		search(rel, abs)
		return nil
	}); err != nil {
		return failed("cannot search %s: %s", display(in.Cwd, root), describeErr(err))
	}
	if len(lines) == 0 {
		return &FileToolOutput{Success: true, Output: fmt.Sprintf("No matches for %s under %s.", in.Inv.Pattern, display(in.Cwd, root))}
	}
	out := strings.Join(lines, "\n") + "\n"
	if more > 0 {
		out += fmt.Sprintf("[... %d more results; narrow the search or page with an offset]\n", more)
	}
	return &FileToolOutput{Success: true, Output: bound(out, in.MaxOutput)}
}

// includeMatch matches a file filter the way ripgrep's --glob does: a glob
// without a slash matches the file name anywhere.
func includeMatch(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		return MatchGlob(glob, path.Base(rel))
	}
	return MatchGlob(strings.TrimPrefix(glob, "./"), rel)
}

func cut(line string) string {
	if len(line) > 500 {
		return line[:500] + "..."
	}
	return line
}

// startup gathers the OS and a short listing of the working directory.
func startup(in FileToolInput) *FileToolOutput {
	info := &harness.StartupInfo{OS: runtime.GOOS, Cwd: in.Cwd}
	entries, err := os.ReadDir(in.Cwd)
	if err != nil {
		info.Listing = fmt.Sprintf("(cannot list %s: %s)", in.Cwd, describeErr(err))
		return &FileToolOutput{Success: true, Startup: info}
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(in.Cwd + "/\n")
	for i, n := range names {
		if i == startupListEntries {
			fmt.Fprintf(&b, "└── ... (%d more)\n", len(names)-startupListEntries)
			break
		}
		branch := "├── "
		if i == len(names)-1 {
			branch = "└── "
		}
		b.WriteString(branch + n + "\n")
	}
	info.Listing = strings.TrimSuffix(b.String(), "\n")
	return &FileToolOutput{Success: true, Startup: info}
}
