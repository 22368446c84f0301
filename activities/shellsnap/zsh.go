package shellsnap

import (
	"strings"
)

// zdotdirVar carries the login shell's exported ZDOTDIR, if it had one,
// to the restore script: ZDOTDIR names the snapshot's directory while
// the command's zsh starts, and must be the user's again for any zsh the
// command starts (which then reads the user's .zshenv, as under a login
// shell).
const zdotdirVar = "INTERPRETER_SNAPSHOT_ZDOTDIR"

// probeVar asks the restore script to say it was read (see
// [capturer.probe]); no command's environment has it.
const probeVar = "INTERPRETER_SNAPSHOT_PROBE"

// probeSaid is what the restore script prints when probed.
const probeSaid = "interpreter-snapshot-read"

// zshFixedOptions are `setopt` names that tell what kind of shell this
// is, or would stop the startup files: they are not set again.
var zshFixedOptions = map[string]bool{"login": true, "interactive": true, "shinstdin": true, "monitor": true,
	"zle": true, "privileged": true, "restricted": true, "singlecommand": true, "noexec": true,
	"norcs": true, "noglobalrcs": true}

// zshLateOptions would stop or trace the restore script itself: they
// are set at its end.
var zshLateOptions = map[string]bool{"errexit": true, "errreturn": true, "nounset": true,
	"xtrace": true, "verbose": true}

// zshRestoreScript is the .zshenv a command's zsh reads from the
// snapshot's directory (passed as ZDOTDIR): it puts the user's ZDOTDIR
// back, then the login shell's options, fpath, functions and aliases (in
// bash's order, for the same reasons). zsh has read /etc/zsh/zshenv
// before it, as every zsh does; the user's own .zshenv is not read: what
// it set up is in the snapshot.
func zshRestoreScript(c captured) string {
	var b strings.Builder
	b.WriteString("# Written by interpreter: the state of a login zsh after its profile (docs/shell-snapshots.md).\n")
	b.WriteString("if (( ${+" + zdotdirVar + "} )); then export ZDOTDIR=\"$" + zdotdirVar + "\"; unset " + zdotdirVar + "; else unset ZDOTDIR; fi\n")
	b.WriteString("if (( ${+" + probeVar + "} )); then unset " + probeVar + "; print -r -- " + probeSaid + "; fi\n")
	early, late := zshOptions(c.sec["setopt"])
	b.WriteString(early)
	if f := strings.TrimSpace(c.sec["fpath"]); strings.HasPrefix(f, "fpath=(") {
		b.WriteString(f + "\n")
	}
	b.WriteString(c.sec["funcs"])
	b.WriteString("\n")
	b.WriteString(c.sec["aliases"])
	b.WriteString("\n")
	b.WriteString(late)
	return b.String()
}

// zshOptions turns the names `setopt` lists into setopt lines, those
// that may be set at once and those set last; one this zsh does not
// know is no error in the command's output.
func zshOptions(listing string) (early, late string) {
	var e, l strings.Builder
	for _, name := range strings.Fields(listing) {
		switch {
		case !isOptionName(name) || zshFixedOptions[name]:
		case zshLateOptions[name]:
			l.WriteString("setopt " + name + " 2>/dev/null\n")
		default:
			e.WriteString("setopt " + name + " 2>/dev/null\n")
		}
	}
	return e.String(), l.String()
}

func isOptionName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return s != ""
}
