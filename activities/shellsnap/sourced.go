package shellsnap

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Bounds of the search for sourced files: it runs once per capture.
const (
	maxSourced      = 32
	maxSourcedDepth = 3
	maxScanned      = 1 << 20 // bytes read of each file
)

// sourceRe finds `. FILE` and `source FILE` (nvm's `\. FILE` too) at the
// start of a command.
var sourceRe = regexp.MustCompile(`(?m)(?:^|[;&|({}]|\bthen|\bdo|\belse)[ \t]*(?:\\?\.|source)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s;&|)]+)`)

// sourcedFiles guesses the files the profile files source in turn
// (`. "$HOME/.cargo/env"`, `\. "$NVM_DIR/nvm.sh"`), so that a change to
// one takes a new snapshot as a change to the profile does. It reads the
// files, not what the shell did: a path is kept only when its variables
// are all in env (the login shell's exported ones, after the profile)
// and it names a file that exists; a path a command prints (`eval
// "$(pyenv init -)"`) or a file sourced under a non-exported variable is
// missed. A file that was not sourced costs a stat per command.
func sourcedFiles(profiles, env []string, home string) []string {
	vars := map[string]string{"HOME": home}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	seen := map[string]bool{}
	for _, p := range profiles {
		seen[p] = true
	}
	var found []string
	level := profiles
	for depth := 0; depth < maxSourcedDepth && len(level) > 0; depth++ {
		var next []string
		for _, f := range level {
			for _, p := range sourcedBy(f, vars) {
				if seen[p] || len(found) >= maxSourced {
					continue
				}
				seen[p] = true
				found = append(found, p)
				next = append(next, p)
			}
		}
		level = next
	}
	slices.Sort(found)
	return found
}

// sourcedBy is the existing files f sources by a path vars resolve.
func sourcedBy(f string, vars map[string]string) []string {
	fh, err := os.Open(f)
	if err != nil {
		return nil
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	text, _ := io.ReadAll(io.LimitReader(fh, maxScanned))
	var out []string
	for _, m := range sourceRe.FindAllSubmatch(text, -1) {
		if p, ok := resolve(string(m[1]), vars); ok {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out = append(out, p)
			}
		}
	}
	return out
}

// resolve expands a sourced path as the shell would, if it can: quotes,
// ~/ and $VAR or ${VAR} of vars; the result must be absolute.
func resolve(word string, vars map[string]string) (string, bool) {
	if len(word) >= 2 && word[0] == '\'' && word[len(word)-1] == '\'' {
		word = word[1 : len(word)-1]
		return word, filepath.IsAbs(word)
	}
	word = strings.Trim(word, `"`)
	if rest, ok := strings.CutPrefix(word, "~/"); ok {
		word = "$HOME/" + rest
	}
	missing := false
	p := os.Expand(word, func(name string) string {
		v, ok := vars[name]
		if !ok || v == "" {
			missing = true
		}
		return v
	})
	if missing || strings.ContainsAny(p, "`$*?[") || !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}
