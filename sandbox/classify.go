package sandbox

import (
	"path"
	"regexp"
	"strings"
)

// simple is one simple command of a shell script: its words after quote
// removal, and whether an unquoted glob may expand some of them.
type simple struct {
	words  []string
	globby bool
	// assigns: it starts with NAME=VALUE words (an environment for the
	// command, which may be LD_PRELOAD and the like).
	assigns bool
}

// parseScript splits a shell script into simple commands joined by &&,
// ||, ;, | and newlines. It returns ok = false for anything beyond that:
// substitutions ($, backquotes), redirections other than 2>&1 and to
// /dev/null, subshells and groups, background jobs, here-docs,
// unterminated quotes. Such a script is never known safe.
func parseScript(script string) (cmds []simple, ok bool) {
	var cur simple
	var word strings.Builder
	inWord, quoted := false, false
	endWord := func() {
		if inWord {
			w := word.String()
			if !quoted && len(cur.words) == 0 && isAssignment(w) {
				cur.assigns = true
			} else {
				cur.words = append(cur.words, w)
			}
		}
		word.Reset()
		inWord, quoted = false, false
	}
	endCmd := func() bool {
		endWord()
		if len(cur.words) == 0 {
			return false // an operator with nothing before it
		}
		cmds = append(cmds, cur)
		cur = simple{}
		return true
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(script[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			word.WriteString(script[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 1
		case c == '"':
			i++
			for ; i < len(script) && script[i] != '"'; i++ {
				switch script[i] {
				case '$', '`':
					return nil, false
				case '\\':
					if i+1 < len(script) && strings.IndexByte("\"\\$`", script[i+1]) >= 0 {
						i++
					}
				}
				word.WriteByte(script[i])
			}
			if i >= len(script) {
				return nil, false
			}
			inWord, quoted = true, true
		case c == '\\':
			if i+1 >= len(script) || script[i+1] == '\n' {
				return nil, false
			}
			i++
			word.WriteByte(script[i])
			inWord, quoted = true, true
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';':
			if !endCmd() && c == ';' {
				return nil, false
			}
		case c == '&' || c == '|':
			if i+1 < len(script) && script[i+1] == c {
				i++ // && or ||
			} else if c == '&' {
				return nil, false // a background job
			}
			if !endCmd() {
				return nil, false
			}
		case c == '>' || c == '<':
			n, ok := harmlessRedirect(script[i:], inWord, word.String())
			if !ok {
				return nil, false
			}
			if inWord { // the fd number before >
				word.Reset()
				inWord = false
			}
			i += n - 1
		case strings.IndexByte("$`(){}", c) >= 0:
			return nil, false
		case c == '#' && !inWord:
			j := strings.IndexByte(script[i:], '\n')
			if j < 0 {
				i = len(script)
			} else {
				i += j - 1
			}
		default:
			if strings.IndexByte("*?[~", c) >= 0 {
				cur.globby = true
			}
			word.WriteByte(c)
			inWord = true
		}
	}
	endWord()
	if len(cur.words) > 0 {
		cmds = append(cmds, cur)
	} else if cur.assigns {
		return nil, false
	}
	if len(cmds) == 0 {
		return nil, false
	}
	return cmds, true
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return assignment.MatchString(w) }

// harmlessRedirect recognizes `2>&1`, `>/dev/null`, `2>/dev/null`,
// `&>/dev/null` at s (which starts with > or <), returning its length.
// prefix is the unquoted word just before it (an fd number or nothing).
func harmlessRedirect(s string, inWord bool, prefix string) (int, bool) {
	if inWord && prefix != "1" && prefix != "2" {
		return 0, false
	}
	if strings.HasPrefix(s, ">&1") || strings.HasPrefix(s, ">&2") {
		return 3, true
	}
	for _, t := range []string{">/dev/null", "> /dev/null", ">>/dev/null"} {
		if strings.HasPrefix(s, t) && (len(s) == len(t) || strings.IndexByte(" \t\n;&|", s[len(t)]) >= 0) {
			return len(t), true
		}
	}
	return 0, false
}

// unwrapShell recognizes `bash -lc SCRIPT` (also sh, zsh, dash; -c).
func unwrapShell(argv []string) (string, bool) {
	if len(argv) != 3 {
		return "", false
	}
	switch path.Base(argv[0]) {
	case "bash", "sh", "zsh", "dash":
	default:
		return "", false
	}
	if argv[1] != "-c" && argv[1] != "-lc" {
		return "", false
	}
	return argv[2], true
}

// maxDepth bounds nested shell wrappers.
const maxDepth = 4

// IsKnownSafe reports whether a command only reads. A `bash -lc` script
// is safe when every simple command of its &&, ||, ;, | chain is, with no
// substitution, redirection (except 2>&1 and to /dev/null), subshell or
// background job.
func IsKnownSafe(argv []string) bool { return knownSafe(argv, 0) }

func knownSafe(argv []string, depth int) bool {
	if depth > maxDepth {
		return false
	}
	if script, ok := unwrapShell(argv); ok {
		cmds, ok := parseScript(script)
		if !ok {
			return false
		}
		for _, c := range cmds {
			if c.assigns || !simpleIsSafe(c.words, c.globby, depth+1) {
				return false
			}
		}
		return true
	}
	return simpleIsSafe(argv, false, depth)
}

// alwaysSafe commands cannot write files or run other programs whatever
// their arguments.
var alwaysSafe = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"grep": true, "egrep": true, "fgrep": true, "true": true, "false": true, "which": true, "whoami": true,
	"nl": true, "cut": true, "tr": true, "stat": true, "uname": true, "id": true, "basename": true,
	"dirname": true, "realpath": true, "readlink": true, "cd": true, "printf": true, "test": true, "[": true,
	"du": true, "df": true, "diff": true, "cmp": true, "md5sum": true, "sha256sum": true, "tree": true,
}

var safeGit = map[string]bool{"status": true, "log": true, "diff": true, "show": true, "branch": true,
	"rev-parse": true, "ls-files": true, "blame": true, "grep": true, "describe": true}

var sedPrint = regexp.MustCompile(`^[0-9]+(,[0-9]+)?p$`)

func simpleIsSafe(argv []string, globby bool, depth int) bool {
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	args := argv[1:]
	if globby && !alwaysSafe[name] {
		return false // a glob may expand into a flag
	}
	switch {
	case alwaysSafe[name]:
		return true
	case name == "bash" || name == "sh" || name == "zsh" || name == "dash":
		return knownSafe(argv, depth+1)
	case name == "git":
		if len(args) == 0 || !safeGit[args[0]] || hasFlag(args, "--output", "--ext-diff", "--textconv", "--exec") {
			return false
		}
		if args[0] == "branch" {
			for _, a := range args[1:] {
				switch a {
				case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--list", "--show-current", "--no-color":
				default:
					return false
				}
			}
		}
		return true
	case name == "find":
		for _, a := range args {
			switch {
			case a == "-exec", a == "-execdir", a == "-delete", a == "-ok", a == "-okdir", a == "-fls",
				strings.HasPrefix(a, "-fprint"):
				return false
			}
		}
		return true
	case name == "rg":
		return !hasFlag(args, "--pre", "--hostname-bin", "--search-zip", "-z")
	case name == "sed":
		// Only `sed -n 12p` / `sed -n 1,20p` with files: sed scripts can
		// write files (w) and run commands (e).
		return len(args) >= 2 && args[0] == "-n" && sedPrint.MatchString(args[1]) && !hasFlag(args[2:], "-i", "--in-place")
	case name == "sort":
		return !hasFlag(args, "-o", "--output", "--compress-program")
	case name == "uniq":
		return positional(args) <= 1
	case name == "date":
		return !hasFlag(args, "-s", "--set")
	case name == "file":
		return !hasFlag(args, "-C", "--compile")
	}
	return false
}

// hasFlag reports whether any argument is one of the flags, alone,
// with =value, or (single-dash) with the value attached or combined.
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
			if len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

func positional(args []string) int {
	n := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			n++
		}
	}
	return n
}

// IsKnownDangerous reports whether a command is one that asks even under
// permissive policies: rm -rf, git push --force, git reset --hard, git
// clean -f, sudo/su/doas, mkfs, dd of=, shred. It looks through bash -lc
// wrappers, chains, and runners such as env, xargs, timeout and nohup;
// a script too complex to parse is searched word by word.
func IsKnownDangerous(argv []string) bool { return dangerous(argv, 0) }

func dangerous(argv []string, depth int) bool {
	if depth > maxDepth {
		return true
	}
	if script, ok := unwrapShell(argv); ok {
		cmds, ok := parseScript(script)
		if !ok {
			return dangerousWords(strings.FieldsFunc(script, func(r rune) bool {
				return strings.ContainsRune(" \t\n;&|()`$<>{}'\"", r)
			}))
		}
		for _, c := range cmds {
			if dangerous(c.words, depth+1) {
				return true
			}
		}
		return false
	}
	return simpleIsDangerous(argv, depth)
}

// runners run the command that follows their own flags and arguments.
var runners = map[string]bool{"env": true, "xargs": true, "timeout": true, "nohup": true, "nice": true,
	"time": true, "command": true, "exec": true, "stdbuf": true, "ionice": true, "watch": true}

func simpleIsDangerous(argv []string, depth int) bool {
	for len(argv) > 0 && isAssignment(argv[0]) {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	args := argv[1:]
	switch {
	case name == "sudo" || name == "su" || name == "doas" || name == "pkexec" || strings.HasPrefix(name, "mkfs") || name == "shred":
		return true
	case name == "bash" || name == "sh" || name == "zsh" || name == "dash":
		return dangerous(argv, depth+1)
	case runners[name]:
		// The wrapped command starts at the first word that is neither a
		// flag nor an assignment nor (for timeout/nice) a number.
		for i, a := range args {
			if strings.HasPrefix(a, "-") || isAssignment(a) || (i == 0 && isNumberish(a)) {
				continue
			}
			return simpleIsDangerous(args[i:], depth+1)
		}
		return false
	case name == "rm":
		return recursiveForce(args)
	case name == "dd":
		for _, a := range args {
			if strings.HasPrefix(a, "of=") {
				return true
			}
		}
	case name == "git":
		sub, rest := gitSubcommand(args)
		switch sub {
		case "push":
			for _, a := range rest {
				if a == "--force" || a == "-f" || strings.HasPrefix(a, "--force-with-lease") || a == "--mirror" || a == "--delete" ||
					(strings.HasPrefix(a, "+") && len(a) > 1) || (len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'f')) {
					return true
				}
			}
		case "reset":
			return hasFlag(rest, "--hard")
		case "clean":
			return hasFlag(rest, "-f", "--force")
		}
	}
	return false
}

// gitSubcommand skips git's global options (-C dir, -c k=v, --git-dir=...).
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

func recursiveForce(args []string) bool {
	r, f := false, false
	for _, a := range args {
		switch {
		case a == "--recursive":
			r = true
		case a == "--force":
			f = true
		case a == "--":
			return r && f
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			r = r || strings.ContainsAny(a[1:], "rR")
			f = f || strings.ContainsRune(a[1:], 'f')
		}
	}
	return r && f
}

func isNumberish(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789.smhd", c) {
			return false
		}
	}
	return true
}

// dangerousWords is the fallback for scripts too complex to parse: any
// word that starts a dangerous command, in any position.
func dangerousWords(words []string) bool {
	for i := range words {
		if simpleIsDangerous(words[i:], maxDepth) {
			return true
		}
	}
	return false
}

// subcommandTools are programs whose first argument names what they do;
// a session approval of `git commit` covers `git commit -m ...` but not
// `git push`.
var subcommandTools = map[string]bool{"git": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "go": true,
	"cargo": true, "docker": true, "kubectl": true, "pip": true, "pip3": true, "make": true, "gh": true,
	"uv": true, "poetry": true, "bundle": true, "rake": true, "mvn": true, "gradle": true, "dotnet": true}

// CommandPrefix is the key under which "approve for the session" is
// remembered: the program and, for tools with subcommands, the
// subcommand (`git commit`, `npm install`, `pytest`). A known-dangerous
// command or a script of several commands is keyed by its whole text, so
// approving `rm -rf build` once does not approve `rm -rf /`.
func CommandPrefix(argv []string) string {
	words := argv
	if script, ok := unwrapShell(argv); ok {
		cmds, ok := parseScript(script)
		if !ok || len(cmds) != 1 || cmds[0].assigns || cmds[0].globby {
			return "script: " + script
		}
		words = cmds[0].words
	}
	if len(words) == 0 {
		return ""
	}
	if IsKnownDangerous(words) {
		return "exact: " + strings.Join(words, " ")
	}
	name := path.Base(words[0])
	if subcommandTools[name] && len(words) > 1 && !strings.HasPrefix(words[1], "-") {
		return name + " " + words[1]
	}
	return name
}
