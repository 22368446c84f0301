package sandbox

import (
	"strings"
	"testing"
)

func TestIsKnownSafe(t *testing.T) {
	cases := []struct {
		argv []string
		safe bool
	}{
		{[]string{"ls", "-la"}, true},
		{[]string{"/bin/cat", "go.mod"}, true},
		{[]string{"git", "status"}, true},
		{[]string{"git", "push"}, false},
		{[]string{"rm", "-rf", "/"}, false},
		{[]string{"find", ".", "-name", "*.go"}, true},
		{[]string{"find", ".", "-delete"}, false},
		{[]string{"sed", "-n", "1,5p", "a"}, true},
		{[]string{"sed", "-i", "s/a/b/", "a"}, false},
		{[]string{"bash", "-lc", "ls && git status"}, true},
		{[]string{"bash", "-lc", "cat a | grep 'x y' | wc -l"}, true},
		{[]string{"bash", "-lc", "ls > out.txt"}, false},
		{[]string{"bash", "-lc", "echo $(rm -rf x)"}, false},
		{[]string{"bash", "-lc", "ls; rm -rf x"}, false},
		{[]string{"bash", "-lc", "ls & rm x"}, false},
		{[]string{"bash", "-lc", "echo 'unterminated"}, false},
		{nil, false},
		{[]string{"bash", "-lc", "cd src && grep -rn 'func main' . | head -20"}, true},
		{[]string{"bash", "-lc", "ls -la 2>&1 | wc -l; git log --oneline -5 2>/dev/null"}, true},
		{[]string{"bash", "-lc", "ls *.go"}, true},
		{[]string{"bash", "-lc", "find *.go"}, false},
		{[]string{"bash", "-lc", "sed -n 1,20p main.go"}, true},
		{[]string{"bash", "-lc", "sed -n 'w out' main.go"}, false},
		{[]string{"bash", "-lc", "sort -o out in"}, false},
		{[]string{"bash", "-lc", "uniq in out"}, false},
		{[]string{"bash", "-lc", "git branch -D main"}, false},
		{[]string{"bash", "-lc", "git log --output=x"}, false},
		{[]string{"bash", "-lc", "LD_PRELOAD=/tmp/x.so ls"}, false},
		{[]string{"bash", "-lc", "ls\nrm x"}, false},
		{[]string{"bash", "-lc", "ls ; ; ls"}, false},
		{[]string{"bash", "-lc", "echo \"$HOME\""}, false},
		{[]string{"bash", "-lc", "(ls)"}, false},
		{[]string{"bash", "-lc", "bash -lc 'ls | wc -l'"}, true},
		{[]string{"bash", "-lc", "rg --pre=sh x"}, false},
		{[]string{"bash", "-lc", "ls # && rm -rf /"}, true},
		{[]string{"sh", "-c", "cat a\\ b"}, true},
		{[]string{"git", "-c", "core.pager=sh", "log"}, false},
	}
	for _, c := range cases {
		if got := IsKnownSafe(c.argv); got != c.safe {
			t.Errorf("IsKnownSafe(%q) = %v, want %v", c.argv, got, c.safe)
		}
	}
}

func TestIsKnownDangerous(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"rm", "-rf", "build"}, true},
		{[]string{"rm", "-r", "-f", "build"}, true},
		{[]string{"rm", "--recursive", "--force", "x"}, true},
		{[]string{"rm", "-r", "build"}, false},
		{[]string{"rm", "x"}, false},
		{[]string{"git", "push", "--force"}, true},
		{[]string{"git", "push", "-f", "origin", "main"}, true},
		{[]string{"git", "push", "origin", "+main"}, true},
		{[]string{"git", "push", "--force-with-lease"}, true},
		{[]string{"git", "-C", "repo", "push", "--force"}, true},
		{[]string{"git", "push", "origin", "main"}, false},
		{[]string{"git", "reset", "--hard", "HEAD~1"}, true},
		{[]string{"git", "clean", "-fdx"}, true},
		{[]string{"sudo", "ls"}, true},
		{[]string{"bash", "-lc", "make && sudo make install"}, true},
		{[]string{"bash", "-lc", "cd x && rm -rf node_modules"}, true},
		{[]string{"bash", "-lc", "echo $(rm -rf /)"}, true},
		{[]string{"bash", "-lc", "find . -name x | xargs rm -rf"}, true},
		{[]string{"bash", "-lc", "timeout 10 sudo reboot"}, true},
		{[]string{"bash", "-lc", "FOO=1 sudo ls"}, true},
		{[]string{"bash", "-lc", "dd if=/dev/zero of=/dev/sda"}, true},
		{[]string{"bash", "-lc", "go test ./... && git status"}, false},
		{[]string{"ls"}, false},
	} {
		if got := IsKnownDangerous(c.argv); got != c.want {
			t.Errorf("IsKnownDangerous(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}

func TestAssess(t *testing.T) {
	rmrf := []string{"bash", "-lc", "rm -rf build"}
	for _, c := range []struct {
		p           Policy
		m           Mode
		argv        []string
		escalate    bool
		want        Decision
		unsandboxed bool
	}{
		{Untrusted, WorkspaceWrite, []string{"ls"}, false, Run, false},
		{Untrusted, WorkspaceWrite, []string{"make"}, false, Ask, false},
		{Untrusted, WorkspaceWrite, []string{"make"}, true, Ask, true},
		{OnRequest, WorkspaceWrite, []string{"make"}, false, Run, false},
		{OnRequest, WorkspaceWrite, []string{"make"}, true, Ask, true},
		{OnRequest, DangerFullAccess, []string{"make"}, true, Run, false},
		{OnRequest, WorkspaceWrite, rmrf, false, Ask, false},
		{OnFailure, WorkspaceWrite, []string{"make"}, true, Run, false},
		{OnFailure, WorkspaceWrite, rmrf, false, Ask, false},
		{Never, WorkspaceWrite, rmrf, false, Run, false},
		{Never, WorkspaceWrite, []string{"make"}, true, Refuse, false},
		{Never, DangerFullAccess, []string{"make"}, false, Run, false},
		{"", WorkspaceWrite, []string{"make"}, false, Run, false},
	} {
		v := Assess(c.p, c.m, c.argv, c.escalate, "needs the network")
		if v.Decision != c.want || v.Unsandboxed != c.unsandboxed {
			t.Errorf("Assess(%s, %s, %q, escalate=%v) = %+v, want %s unsandboxed=%v", c.p, c.m, c.argv, c.escalate, v, c.want, c.unsandboxed)
		}
	}
}

func TestCommandPrefix(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"git", "commit", "-m", "x"}, "git commit"},
		{[]string{"bash", "-lc", "git commit -am 'fix it'"}, "git commit"},
		{[]string{"bash", "-lc", "pytest -x tests"}, "pytest"},
		{[]string{"bash", "-lc", "npm install left-pad"}, "npm install"},
		{[]string{"bash", "-lc", "rm -rf build"}, "exact: rm -rf build"},
		{[]string{"bash", "-lc", "make && make install"}, "script: make && make install"},
		{[]string{"git", "--version"}, "git"},
	} {
		if got := CommandPrefix(c.argv); got != c.want {
			t.Errorf("CommandPrefix(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	if _, err := ParseMode("yolo"); err == nil {
		t.Error("ParseMode accepted yolo")
	}
	if _, err := ParsePolicy("sometimes"); err == nil {
		t.Error("ParsePolicy accepted sometimes")
	}
	if m, err := ParseMode("read-only"); err != nil || m != ReadOnly {
		t.Errorf("ParseMode(read-only) = %v, %v", m, err)
	}
}

func FuzzIsKnownSafe(f *testing.F) {
	f.Add("ls && git status | wc -l")
	f.Add("echo 'a b' \"c\"")
	f.Add("cd a && rm -rf b; git push --force origin +main")
	f.Add("echo \"a\\\"b\" 'c' d\\ e 2>&1 | sort -o x # c")
	f.Add("bash -lc 'sh -c \"ls\"' && sudo true\nls 2>/dev/null")
	f.Fuzz(func(t *testing.T, s string) {
		argv := []string{"bash", "-lc", s}
		safe := IsKnownSafe(argv)
		if safe && IsKnownDangerous(argv) {
			t.Errorf("%q is both known safe and known dangerous", s)
		}
		_ = CommandPrefix(argv)
		_ = Assess(Untrusted, WorkspaceWrite, argv, false, "")
		if safe && strings.ContainsAny(s, "$`<(){}") && !strings.ContainsAny(s, "'\"#\\") {
			t.Errorf("%q is known safe though it has substitutions, redirections or groups", s)
		}
	})
}
