package shellsnap

import (
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// restoreVar carries the login shell's own BASH_ENV, if it had one, to
// the restore script, which puts it back: BASH_ENV itself names the
// restore script, and no other bash the command starts may read that.
const restoreVar = "INTERPRETER_SNAPSHOT_BASH_ENV"

// perShell are variables each shell sets for itself: the command's own
// values are kept, not the login shell's.
var perShell = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// fixedOptions cannot be set, or only matter to an interactive shell.
var fixedOptions = map[string]bool{"login_shell": true, "restricted_shell": true,
	"history": true, "monitor": true, "emacs": true, "vi": true}

// startupVar is the variable that makes a non-login shell of kind k read
// the restore script at path, and the one that carries the login
// shell's own value of it to the script.
// dash has none ("").
func startupVar(k shellKind, path string) (name, value, carrier string) {
	switch k {
	case zshShell:
		return "ZDOTDIR", filepath.Dir(path), zdotdirVar
	case dashShell:
		return "", "", ""
	}
	return "BASH_ENV", path, restoreVar
}

// restoreScriptOf is the restore script of a kind of shell.
func restoreScriptOf(k shellKind, c captured) string {
	if k == zshShell {
		return zshRestoreScript(c)
	}
	return restoreScript(c)
}

// restoreScript is what bash sources (as BASH_ENV) before a command:
// the login shell's options, functions and aliases. Options come first,
// since function bodies may need them (extglob) to parse; set -o last,
// since errexit or nounset would stop the script itself.
func restoreScript(c captured) string {
	var b strings.Builder
	b.WriteString("# Written by interpreter: the state of a login shell after its profile (docs/shell-snapshots.md).\n")
	b.WriteString("if [ -n \"${" + restoreVar + "+x}\" ]; then export BASH_ENV=\"$" + restoreVar + "\"; unset " + restoreVar + "; else unset BASH_ENV; fi\n")
	b.WriteString(optionLines(c.sec["shopt"]))
	b.WriteString(c.sec["funcs"])
	b.WriteString("\n")
	b.WriteString(c.sec["aliases"])
	b.WriteString("\n")
	b.WriteString(optionLines(c.sec["set"]))
	return b.String()
}

// optionLines keeps the lines of `shopt -p` or `set +o` that may be set.
func optionLines(listing string) string {
	var b strings.Builder
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || (f[0] != "shopt" && f[0] != "set") || fixedOptions[f[2]] {
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}

// commandEnv is the environment a command of shell kind k gets in place
// of cmdEnv: the login shell's variables the policy keeps, the command's
// own per-shell variables, and the startup variable naming the restore
// script (BASH_ENV, or ZDOTDIR for zsh), whose own value the script
// puts back.
func commandEnv(k shellKind, c captured, cmdEnv []string, policy sandbox.EnvPolicy, script string) []string {
	startup, value, carrier := startupVar(k, script)
	out := make([]string, 0, len(c.env)+4)
	for _, kv := range c.env {
		name, v, _ := strings.Cut(kv, "=")
		switch {
		case perShell[name] || carrier != "" && name == carrier:
		case startup != "" && name == startup:
			out = append(out, carrier+"="+v)
		case policy.Keeps(name):
			out = append(out, kv)
		}
	}
	for _, kv := range cmdEnv {
		if name, _, _ := strings.Cut(kv, "="); perShell[name] {
			out = append(out, kv)
		}
	}
	if startup == "" {
		return out
	}
	return append(out, startup+"="+value)
}
