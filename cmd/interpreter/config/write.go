package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
)

// Codex's names for why a write was refused (the app-server's
// config_write_error_code).
const (
	WriteInvalid         = "configValidationError"
	WriteVersionConflict = "configVersionConflict"
	WriteReadonly        = "configLayerReadonly"
)

// WriteError is a refused write; nothing was written.
type WriteError struct {
	// Code is one of WriteInvalid, WriteVersionConflict, WriteReadonly.
	Code string
	Err  error
}

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Edit is one change to config.toml.
type Edit struct {
	// KeyPath is a dotted key (features.multi_agent; parts may be quoted
	// as in TOML).
	KeyPath string
	// Value is a JSON-decoded value; nil removes the key.
	Value any
	// Upsert merges a table value into the table there key by key;
	// otherwise the value replaces what is there.
	Upsert bool
}

// Written is what a write did.
type Written struct {
	// Path is the file written; Version is its new version.
	Path, Version string
	// Overridden names the edits whose key a layer above the file (a -c
	// override, the selected profile) sets to something else, so the
	// effective value is not the one written.
	Overridden []Overridden
}

// Overridden is an edited key whose effective value comes from elsewhere.
type Overridden struct {
	KeyPath string
	// Layer is "sessionFlags" (a -c override) or "profile".
	Layer string
	Value any
}

// writeMu serializes this process's writes (a read, an edit and a
// rename each).
var writeMu sync.Mutex

// FileVersion is the version of a config file's content as Codex's
// app-server reports it: "sha256:" and the hex digest.
func FileVersion(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// WriteEdits applies edits to the config file of opts.Home, in order, and
// writes the result atomically (a temporary file renamed over it), keeping
// every comment and line the edits do not touch. The result must load
// with opts (the server's -c overrides, profile and strictness) and give
// a thread configuration, or nothing is written and a *WriteError with
// Code WriteInvalid says why. A non-empty expectedVersion must be the
// file's current version (WriteVersionConflict otherwise).
func WriteEdits(opts Options, edits []Edit, expectedVersion string) (Written, error) {
	writeMu.Lock()
	defer writeMu.Unlock()
	path := Path(opts.Home)
	text, err := ReadText(path)
	if err != nil {
		return Written{}, err
	}
	if expectedVersion != "" && expectedVersion != FileVersion(text) {
		//lint:ignore ST1005 the message is Codex's, word for word: clients show it
		return Written{}, &WriteError{Code: WriteVersionConflict, Err: errors.New("Configuration was modified since last read. Fetch latest version and retry.")}
	}
	for _, e := range edits {
		if text, err = applyEdit(text, e); err != nil {
			return Written{}, &WriteError{Code: WriteInvalid, Err: err}
		}
	}
	cfg, err := checkText(opts, text)
	if err != nil {
		//lint:ignore ST1005 the message is Codex's, word for word: clients show it
		return Written{}, &WriteError{Code: WriteInvalid, Err: fmt.Errorf("Invalid configuration: %v", err)}
	}
	if err := writeAtomic(path, text); err != nil {
		return Written{}, err
	}
	w := Written{Path: path, Version: FileVersion(text)}
	for _, e := range edits {
		if o, ok := overridden(opts, cfg, e); ok && !reflect.DeepEqual(o.Value, normalizeJSON(e.Value)) {
			w.Overridden = append(w.Overridden, o)
		}
	}
	return w, nil
}

// applyEdit makes one edit in the text.
func applyEdit(text string, e Edit) (string, error) {
	if e.KeyPath == "" {
		return "", errors.New("keyPath must not be empty")
	}
	path, err := splitKey(e.KeyPath)
	if err != nil {
		return "", fmt.Errorf("keyPath %q: %v", e.KeyPath, err)
	}
	v := normalizeJSON(e.Value)
	if v == nil {
		return removeKey(text, path)
	}
	if table, ok := v.(map[string]any); ok {
		if !e.Upsert {
			if text, err = removeKey(text, path); err != nil {
				return "", err
			}
		}
		return upsertTable(text, path, table)
	}
	lit, err := valueLiteral(v)
	if err != nil {
		return "", fmt.Errorf("%s: %v", e.KeyPath, err)
	}
	return setKey(text, path, lit)
}

// upsertTable sets each key of table below path, tables key by key.
func upsertTable(text string, path []string, table map[string]any) (string, error) {
	if len(table) == 0 {
		d, err := parseDoc(text)
		if err != nil || d.isTable(path) {
			return text, err
		}
		return setKey(text, path, "{}")
	}
	var err error
	for _, k := range sortedKeys(table) {
		sub := append(append([]string{}, path...), k)
		if t, ok := table[k].(map[string]any); ok {
			text, err = upsertTable(text, sub, t)
		} else {
			var lit string
			if lit, err = valueLiteral(table[k]); err == nil {
				text, err = setKey(text, sub, lit)
			}
		}
		if err != nil {
			return "", err
		}
	}
	return text, nil
}

// checkText loads the configuration as it would be with text as the
// file, and builds a thread's settings from it (in the home directory,
// which exists).
func checkText(opts Options, text string) (*Config, error) {
	opts.text = &text
	cfg, err := Load(opts)
	if err != nil {
		return nil, err
	}
	if _, err := cfg.ThreadConfig(cfg.Home()); err != nil {
		return nil, err
	}
	return cfg, nil
}

// writeAtomic replaces path's content with text: readers see the old
// file or the new one, never a part.
func writeAtomic(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone by the rename when all went well
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// overridden tells whether a layer above the file sets the edited key:
// a -c override of the key or of a table holding it, or the selected
// profile.
func overridden(opts Options, cfg *Config, e Edit) (Overridden, bool) {
	path, err := splitKey(e.KeyPath)
	if err != nil {
		return Overridden{}, false
	}
	for i := len(opts.Overrides) - 1; i >= 0; i-- {
		key, value, err := ParseOverride(opts.Overrides[i])
		if err != nil {
			continue
		}
		parts, _ := splitKey(key)
		if v, ok := lookupPath(map[string]any{parts[0]: nest(parts[1:], value)}, path); ok {
			return Overridden{KeyPath: e.KeyPath, Layer: "sessionFlags", Value: v}, true
		}
	}
	if cfg.Profile != "" {
		if v, ok := lookupPath(cfg.Profiles[cfg.Profile], path); ok {
			return Overridden{KeyPath: e.KeyPath, Layer: "profile", Value: v}, true
		}
	}
	return Overridden{}, false
}

// nest puts value below the keys parts.
func nest(parts []string, value any) any {
	for i := len(parts) - 1; i >= 0; i-- {
		value = map[string]any{parts[i]: value}
	}
	return value
}

// lookupPath reads the value at path in a tree.
func lookupPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}
