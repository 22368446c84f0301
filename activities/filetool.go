package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
)

// FileToolInput is one call of a file tool (read, write, edit, list, glob,
// grep), or the start-up context some harnesses open a thread with.
type FileToolInput struct {
	ThreadID string             `json:"thread_id"`
	CallID   string             `json:"call_id"`
	Cwd      string             `json:"cwd"`
	Inv      harness.Invocation `json:"invocation"`
	// MaxOutput bounds the output kept for the model.
	MaxOutput int `json:"max_output,omitempty"`
}

// FileToolOutput is the result the model reads. A tool that cannot do what
// it was asked (no such file, an edit that does not match) is a normal,
// failed result.
type FileToolOutput struct {
	Success bool         `json:"success"`
	Output  string       `json:"output"`
	Changes []FileChange `json:"changes,omitempty"`
	// Startup is set for ToolStartup.
	Startup *harness.StartupInfo `json:"startup,omitempty"`
}

// ToolStartup is the FileTool operation that gathers the start-up context
// (OS and a listing of the working directory) of a thread.
const ToolStartup = "startup"

// Limits of the file tools.
const (
	defaultReadLines   = 2000
	maxLineChars       = 2000
	defaultReadOutput  = 48 * 1024
	defaultListEntries = 500
	defaultGlobResults = 500
	defaultGrepResults = 250
	maxGrepFileBytes   = 8 << 20
	startupListEntries = 20
)

// FileTool runs a file tool on the workspace host. Reads, listings and
// searches change nothing and are safe to retry. Writes and edits are
// idempotent: the outcome is recorded under the call id, and the new file
// content is staged next to the file before the record is written, so a
// retry after a crash finishes the rename and returns the record instead of
// editing twice.
func (a *Activities) FileTool(ctx context.Context, in FileToolInput) (*FileToolOutput, error) {
	switch in.Inv.Tool {
	case harness.ToolRead:
		return a.readFile(in), nil
	case harness.ToolList:
		return listDir(ctx, in), nil
	case harness.ToolGlob:
		return globFiles(ctx, in), nil
	case harness.ToolGrep:
		return grepFiles(ctx, in), nil
	case harness.ToolWrite, harness.ToolEdit:
		return a.changeFile(in)
	case ToolStartup:
		return startup(in), nil
	}
	return &FileToolOutput{Output: fmt.Sprintf("error: %q is not a file tool", in.Inv.Tool)}, nil
}

func failed(format string, args ...any) *FileToolOutput {
	return &FileToolOutput{Output: "error: " + fmt.Sprintf(format, args...)}
}

// resolve makes p absolute (relative paths are taken from cwd).
func resolve(cwd, p string) string {
	if p == "" {
		return filepath.Clean(cwd)
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// display names a path for the model: relative to cwd when inside it.
func display(cwd, abs string) string {
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return abs
}

func describeErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

func (a *Activities) readFile(in FileToolInput) *FileToolOutput {
	if in.Inv.Path == "" {
		return failed("read needs a file path")
	}
	p := resolve(in.Cwd, in.Inv.Path)
	shown := display(in.Cwd, p)
	st, err := os.Stat(p)
	if err != nil {
		return failed("cannot read %s: %s", shown, describeErr(err))
	}
	if st.IsDir() {
		return failed("%s is a directory; list it instead of reading it", shown)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return failed("cannot read %s: %s", shown, describeErr(err))
	}
	if isBinary(data) {
		return &FileToolOutput{Success: true, Output: fmt.Sprintf("%s is a binary file (%d bytes); it is not shown.", shown, len(data))}
	}
	if len(data) == 0 {
		return &FileToolOutput{Success: true, Output: fmt.Sprintf("%s is empty.", shown)}
	}
	text := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(text, "\n")
	total := len(lines)
	start := in.Inv.Offset // 1-based; 0 = first line; negative = from the end
	switch {
	case start < 0:
		start = max(total+start+1, 1)
	case start == 0:
		start = 1
	}
	if start > total {
		return failed("%s has %d lines; offset %d is past the end", shown, total, in.Inv.Offset)
	}
	limit := in.Inv.Limit
	if limit <= 0 {
		limit = defaultReadLines
	}
	budget := in.MaxOutput
	if budget <= 0 {
		budget = defaultReadOutput
	}
	var b strings.Builder
	end := start - 1
	for i := start - 1; i < total && i < start-1+limit; i++ {
		line := lines[i]
		if len(line) > maxLineChars {
			line = line[:maxLineChars] + "... [line cut]"
		}
		entry := fmt.Sprintf("%6d\t%s\n", i+1, line)
		if b.Len()+len(entry) > budget && i > start-1 {
			break
		}
		b.WriteString(entry)
		end = i + 1
	}
	if end < total || start > 1 {
		fmt.Fprintf(&b, "[lines %d-%d of %d; read more with an offset]\n", start, end, total)
	}
	return &FileToolOutput{Success: true, Output: b.String()}
}

// changeFile runs write and edit idempotently (see [Activities.FileTool]).
func (a *Activities) changeFile(in FileToolInput) (*FileToolOutput, error) {
	if in.Inv.Path == "" {
		return failed("%s needs a file path", in.Inv.Tool), nil
	}
	p := resolve(in.Cwd, in.Inv.Path)
	marker := filepath.Join(a.Store.Dir(), "filetools", safeName(in.ThreadID), safeName(in.CallID)+".json")
	staged := p + ".interpreter-" + safeName(in.CallID) + ".tmp"
	if b, err := os.ReadFile(marker); err == nil {
		var out FileToolOutput
		if json.Unmarshal(b, &out) == nil {
			if _, err := os.Stat(staged); err == nil {
				if err := os.Rename(staged, p); err != nil {
					return nil, fmt.Errorf("finishing %s: %w", in.Inv.Tool, err)
				}
			}
			return &out, nil
		}
	}
	out, content, mode := planChange(in, p)
	if out.Success {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return failed("cannot create the directory of %s: %s", display(in.Cwd, p), describeErr(err)), nil
		}
		if err := os.WriteFile(staged, content, mode); err != nil {
			return failed("cannot write %s: %s", display(in.Cwd, p), describeErr(err)), nil
		}
	}
	if err := writeRecord(marker, out); err != nil {
		os.Remove(staged)
		return nil, err
	}
	if out.Success {
		if err := os.Rename(staged, p); err != nil {
			return nil, fmt.Errorf("writing %s: %w", p, err)
		}
	}
	return out, nil
}

func writeRecord(marker string, out *FileToolOutput) error {
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return fmt.Errorf("recording the result: %w", err)
	}
	tmp := marker + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("recording the result: %w", err)
	}
	if err := os.Rename(tmp, marker); err != nil {
		return fmt.Errorf("recording the result: %w", err)
	}
	return nil
}

// planChange computes the new content of a write or edit without touching
// the file.
func planChange(in FileToolInput, p string) (*FileToolOutput, []byte, os.FileMode) {
	shown := display(in.Cwd, p)
	mode := os.FileMode(0o644)
	old, err := os.ReadFile(p)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failed("cannot read %s: %s", shown, describeErr(err)), nil, 0
	}
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return failed("%s is a directory", shown), nil, 0
		}
		mode = st.Mode().Perm()
	}
	kind := "update"
	if !exists {
		kind = "add"
	}
	if in.Inv.Tool == harness.ToolWrite {
		content := []byte(in.Inv.Content)
		verb := "Wrote"
		if in.Inv.Append {
			content = append(append([]byte{}, old...), content...)
			verb = "Appended"
		}
		return &FileToolOutput{Success: true,
			Output:  fmt.Sprintf("%s %d bytes to %s (%d lines now).", verb, len(in.Inv.Content), shown, strings.Count(string(content), "\n")+boolInt(len(content) > 0 && content[len(content)-1] != '\n')),
			Changes: []FileChange{{Path: shown, Kind: kind}}}, content, mode
	}
	edits := in.Inv.Edits
	if len(edits) == 0 {
		return failed("edit needs the text to replace and its replacement"), nil, 0
	}
	if !exists {
		if len(edits) == 1 && edits[0].Old == "" {
			return &FileToolOutput{Success: true, Output: fmt.Sprintf("Created %s.", shown),
				Changes: []FileChange{{Path: shown, Kind: "add"}}}, []byte(edits[0].New), mode
		}
		return failed("cannot edit %s: no such file (to create it, write it)", shown), nil, 0
	}
	text := string(old)
	total := 0
	first := -1
	for i, e := range edits {
		label := ""
		if len(edits) > 1 {
			label = fmt.Sprintf("edit %d: ", i+1)
		}
		if e.Old == "" {
			return failed("%sthe text to replace is empty; to replace the whole file, write it", label), nil, 0
		}
		if e.Old == e.New {
			return failed("%sthe replacement is the same as the text it replaces", label), nil, 0
		}
		n := strings.Count(text, e.Old)
		switch {
		case n == 0:
			return failed("%sthe text to replace was not found in %s (it must match exactly, whitespace included; read the file again). Nothing was changed.", label, shown), nil, 0
		case n > 1 && !e.All:
			return failed("%sthe text to replace occurs %d times in %s; include more surrounding lines to make it unique, or replace all occurrences. Nothing was changed.", label, n, shown), nil, 0
		}
		if first < 0 {
			first = strings.Index(text, e.Old)
		}
		if e.All {
			text = strings.ReplaceAll(text, e.Old, e.New)
		} else {
			text = strings.Replace(text, e.Old, e.New, 1)
		}
		total += n
	}
	out := &FileToolOutput{Success: true, Changes: []FileChange{{Path: shown, Kind: "update"}}}
	out.Output = fmt.Sprintf("Edited %s (%d replacement%s). The changed region now reads:\n%s", shown, total, plural(total), snippet(text, first))
	return out, []byte(text), mode
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// snippet shows a few numbered lines around byte offset at.
func snippet(text string, at int) string {
	line := strings.Count(text[:min(max(at, 0), len(text))], "\n")
	lines := strings.Split(text, "\n")
	from, to := max(line-3, 0), min(line+8, len(lines))
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, lines[i])
	}
	return b.String()
}
