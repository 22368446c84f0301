package shellsnap

import (
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

// restoreScript is what bash sources (as BASH_ENV) before a command:
// the login shell's options, functions and aliases. Options come first,
// since function bodies may need them (extglob) to parse; set -o last,
// since errexit or nounset would stop the script itself.
func restoreScript(c captured) string {
	var b strings.Builder
	b.WriteString("# Written by interpreter: the state of a login shell after its profile (README: Shell snapshots).\n")
	b.WriteString("if [ -n \"${" + restoreVar + "+x}\" ]; then export BASH_ENV=\"$" + restoreVar + "\"; unset " + restoreVar + "; else unset BASH_ENV; fi\n")
	b.WriteString(optionLines(c.shopt))
	b.WriteString(c.funcs)
	b.WriteString("\n")
	b.WriteString(c.aliases)
	b.WriteString("\n")
	b.WriteString(optionLines(c.set))
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

// commandEnv is the environment a command gets in place of cmdEnv: the
// login shell's variables the policy keeps, the command's own per-shell
// variables, and BASH_ENV naming the restore script.
func commandEnv(c captured, cmdEnv []string, policy sandbox.EnvPolicy, script string) []string {
	out := make([]string, 0, len(c.env)+4)
	for _, kv := range c.env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case perShell[name] || name == restoreVar:
		case name == "BASH_ENV":
			out = append(out, restoreVar+"="+value)
		case policy.Keeps(name):
			out = append(out, kv)
		}
	}
	for _, kv := range cmdEnv {
		if name, _, _ := strings.Cut(kv, "="); perShell[name] {
			out = append(out, kv)
		}
	}
	return append(out, "BASH_ENV="+script)
}
