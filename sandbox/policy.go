// Package sandbox owns what a command may do: sandbox modes, approval
// policies, and the pure decision of whether a command runs, needs a
// person's approval, or is refused. It knows nothing of Temporal; the turn
// workflow asks it before every command.
package sandbox

import (
	"fmt"
	"path"
	"strings"
)

// Mode is a sandbox mode (what a command can touch).
type Mode string

// Sandbox modes.
const (
	ReadOnly         Mode = "read-only"
	WorkspaceWrite   Mode = "workspace-write"
	DangerFullAccess Mode = "danger-full-access"
)

// Policy is an approval policy (when to ask a person).
type Policy string

// Approval policies.
const (
	Untrusted Policy = "untrusted"
	OnFailure Policy = "on-failure"
	OnRequest Policy = "on-request"
	Never     Policy = "never"
)

// ParseMode validates a sandbox mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ReadOnly, WorkspaceWrite, DangerFullAccess:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (valid: read-only, workspace-write, danger-full-access)", s)
}

// ParsePolicy validates an approval policy name.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Untrusted, OnFailure, OnRequest, Never:
		return p, nil
	}
	return "", fmt.Errorf("unknown approval policy %q (valid: untrusted, on-failure, on-request, never)", s)
}

// Decision is what happens to a command.
type Decision string

// Decisions.
const (
	Run Decision = "run"
	Ask Decision = "ask"
)

// Decide says whether a command runs at once or needs approval first.
// Under "untrusted" only known-safe (read-only) commands run without
// asking; the other policies run commands (inside the sandbox, where one
// is enforced) and ask only on failure or on the model's request.
func Decide(p Policy, argv []string) Decision {
	if p == Untrusted && !IsKnownSafe(argv) {
		return Ask
	}
	return Run
}

var safeCommands = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"grep": true, "rg": true, "true": true, "false": true, "which": true, "whoami": true,
	"nl": true, "cut": true, "tr": true, "sort": true, "uniq": true, "stat": true, "file": true,
	"date": true, "uname": true, "id": true, "basename": true, "dirname": true, "realpath": true,
}

var safeGit = map[string]bool{"status": true, "log": true, "diff": true, "show": true, "branch": true, "rev-parse": true}

// IsKnownSafe reports whether a command only reads. A `bash -lc` script is
// safe when every command of its `&&`, `||`, `;` and `|` chain is, with no
// redirection, substitution or subshell.
func IsKnownSafe(argv []string) bool {
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") {
		return scriptIsSafe(argv[2])
	}
	return simpleIsSafe(argv)
}

func simpleIsSafe(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	switch {
	case safeCommands[name]:
		return true
	case name == "git":
		return len(argv) > 1 && safeGit[argv[1]]
	case name == "find":
		for _, a := range argv[1:] {
			if a == "-exec" || a == "-execdir" || a == "-delete" || a == "-ok" || strings.HasPrefix(a, "-fprint") {
				return false
			}
		}
		return true
	case name == "sed":
		return len(argv) > 1 && argv[1] == "-n"
	}
	return false
}

func scriptIsSafe(script string) bool {
	if strings.ContainsAny(script, "<>`$()\n\\{}") {
		return false
	}
	replacer := strings.NewReplacer("&&", "\x00", "||", "\x00", ";", "\x00", "|", "\x00")
	for _, part := range strings.Split(replacer.Replace(script), "\x00") {
		words, ok := splitWords(part)
		if !ok || !simpleIsSafe(words) {
			return false
		}
	}
	return true
}

// splitWords splits a simple command on blanks, honouring single and
// double quotes; anything fancier is not a simple command.
func splitWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	quote := byte(0)
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '&' || c == '*' || c == '?' || c == '~':
			return nil, false
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}
