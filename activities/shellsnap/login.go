// Package shellsnap runs login-shell commands without reading the login
// profile every time. A model asks for nearly every command as
// `bash -lc CMD`; a login shell reads /etc/profile and ~/.profile (nvm,
// pyenv, conda: often hundreds of milliseconds, and noise such as
// "pyenv: cannot rehash" inside a sandbox). Instead the profile is read
// once per workspace host, shell, user and environment, inside a login
// shell whose exported variables, functions, aliases and options are
// captured (a snapshot); each command then runs as the non-login
// `bash -c CMD` (`zsh -c CMD`) with that environment and a small script
// that restores the rest, so it sees what a login shell would have set
// up.
//
// [Cache.Prepare] is the one entry point: give it the command as the
// model sent it (or [LoginArgv] of a shell and a script), and it returns
// the argv and environment to run.
package shellsnap

import (
	"os/exec"
	"path/filepath"
)

// Login is a command that asks for a login shell to run a script.
type Login struct {
	// Shell is argv[0] as given (a name looked up in PATH, or a path).
	Shell string
	// Script is the -c argument.
	Script string
	// Args follow the script ($0, $1, ...).
	Args []string
}

// ParseLogin recognizes the spellings of "a login bash, zsh or dash
// running a script": `bash -lc CMD`, `bash -cl CMD`, `bash -l -c CMD`
// and `bash --login -c CMD` (and the same of zsh; of dash, or sh when
// it is dash, but for --login, which dash does not take), with any
// arguments after CMD. Other shells and flags (-i, -e, ...) are not
// recognized: they run as given.
func ParseLogin(argv []string) (Login, bool) {
	if len(argv) < 3 {
		return Login{}, false
	}
	// The flags first: telling whether sh is dash costs a few stats.
	rest := argv[1:]
	switch {
	case rest[0] == "-lc" || rest[0] == "-cl":
		rest = rest[1:]
	case len(rest) >= 3 && (rest[0] == "-l" || rest[0] == "--login") && rest[1] == "-c":
		rest = rest[2:]
	default:
		return Login{}, false
	}
	if k := kindOf(argv[0]); k == 0 || k == dashShell && argv[1] == "--login" {
		return Login{}, false
	}
	return Login{Shell: argv[0], Script: rest[0], Args: rest[1:]}, true
}

// LoginArgv is the command that runs script in a login shell: what a
// tool with a `login: true` option runs, to pass to [Cache.Prepare].
func LoginArgv(shell, script string) []string {
	return []string{shell, "-lc", script}
}

// nonLogin is l as a non-login shell: `bash -c CMD ARGS...`.
func (l Login) nonLogin() []string {
	return append([]string{l.Shell, "-c", l.Script}, l.Args...)
}

// shellKind is a shell whose snapshot this package can restore.
type shellKind int

const (
	// bash reads BASH_ENV before running a -c script, which is how its
	// snapshot is applied without changing the script.
	bashShell shellKind = iota + 1
	// zsh reads $ZDOTDIR/.zshenv in every shell: the snapshot is a
	// .zshenv in a directory of its own, passed as ZDOTDIR.
	zshShell
	// dash reads no file in a non-login `sh -c`: its snapshot is the
	// environment alone.
	dashShell
)

// kindOf tells the kind of shell (a name or a path), 0 for shells run as
// given (fish, ksh, a sh that is not dash, ...: see
// docs/shell-snapshots.md).
func kindOf(shell string) shellKind {
	switch filepath.Base(shell) {
	case "bash":
		return bashShell
	case "zsh":
		return zshShell
	case "dash":
		return dashShell
	case "sh":
		if isDash(shell) {
			return dashShell
		}
	}
	return 0
}

// isDash tells whether sh (a name looked up in PATH, or a path) is
// dash, as /bin/sh is on Debian and Ubuntu; a bash or busybox sh is not
// recognized.
func isDash(sh string) bool {
	p, err := exec.LookPath(sh)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && filepath.Base(real) == "dash"
}
