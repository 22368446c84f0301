package shellsnap

import (
	"slices"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/sandbox"
)

func TestParseLogin(t *testing.T) {
	cases := []struct {
		argv []string
		ok   bool
		want []string // the non-login command
	}{
		{[]string{"bash", "-lc", "ls"}, true, []string{"bash", "-c", "ls"}},
		{[]string{"/bin/bash", "-cl", "ls"}, true, []string{"/bin/bash", "-c", "ls"}},
		{[]string{"bash", "-l", "-c", "ls"}, true, []string{"bash", "-c", "ls"}},
		{[]string{"bash", "--login", "-c", "echo $0 $1", "name", "one"}, true, []string{"bash", "-c", "echo $0 $1", "name", "one"}},
		{[]string{"bash", "-c", "ls"}, false, nil},
		{[]string{"bash", "-lic", "ls"}, false, nil},
		{[]string{"bash", "-l", "script.sh"}, false, nil},
		{[]string{"bash", "-lc"}, false, nil},
		{[]string{"zsh", "-lc", "ls"}, false, nil},
		{[]string{"sh", "-lc", "ls"}, false, nil},
		{[]string{"bashful", "-lc", "ls"}, false, nil},
		{[]string{"ls", "-lc", "x"}, false, nil},
	}
	for _, tc := range cases {
		l, ok := ParseLogin(tc.argv)
		if ok != tc.ok || (ok && !slices.Equal(l.nonLogin(), tc.want)) {
			t.Errorf("ParseLogin(%q) = %+v, %v; want %q, %v", tc.argv, l, ok, tc.want, tc.ok)
		}
	}
	if l, ok := ParseLogin(LoginArgv("/usr/bin/bash", "make")); !ok || l.Shell != "/usr/bin/bash" || l.Script != "make" {
		t.Errorf("LoginArgv does not parse back: %+v", l)
	}
}

func TestParseCapture(t *testing.T) {
	m := "interpreter-snapshot-abc"
	sec := func(n string) string { return "\n" + m + ":" + n + "\n" }
	full := "noise from the profile\n" + sec("env") + "A=1\x00B=two\nlines\x00\x00" + sec("funcs") + "f () \n{ \n    echo\n}\n" +
		sec("aliases") + "alias ll='ls -l'\n" + sec("shopt") + "shopt -s extglob\n" + sec("set") + "set -o braceexpand\n" + sec("end")
	c, err := parseCapture([]byte(full), m)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.env, []string{"A=1", "B=two\nlines"}) || !strings.Contains(c.funcs, "echo") ||
		c.aliases != "alias ll='ls -l'\n" || c.shopt != "shopt -s extglob\n" || c.set != "set -o braceexpand\n" {
		t.Errorf("got %+v", c)
	}
	for name, out := range map[string]string{
		"no snapshot":    "the profile exited\n",
		"cut":            full[:strings.Index(full, sec("shopt"))],
		"other nonce":    strings.ReplaceAll(full, m, "interpreter-snapshot-other"),
		"no environment": sec("env") + sec("funcs") + sec("aliases") + sec("shopt") + sec("set") + sec("end"),
	} {
		if _, err := parseCapture([]byte(out), m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRestoreScriptOrdersOptionsAndDropsFixedOnes(t *testing.T) {
	s := restoreScript(captured{funcs: "f () \n{ \n    :\n}\n", aliases: "alias x='y'\n",
		shopt: "shopt -s extglob\nshopt -s login_shell\nnot an option\n", set: "set -o braceexpand\nset +o history\n"})
	ext, fn, al, brace := strings.Index(s, "shopt -s extglob"), strings.Index(s, "f ()"), strings.Index(s, "alias x"), strings.Index(s, "set -o braceexpand")
	if ext < 0 || fn < ext || al < fn || brace < al {
		t.Errorf("wrong order:\n%s", s)
	}
	for _, dropped := range []string{"login_shell", "history", "not an option"} {
		if strings.Contains(s, dropped) {
			t.Errorf("%q kept:\n%s", dropped, s)
		}
	}
}

func TestCommandEnv(t *testing.T) {
	c := captured{env: []string{"PATH=/profile/bin:/usr/bin", "PWD=/home/u", "SHLVL=2", "_=/usr/bin/env",
		"GITHUB_TOKEN=t", "OPENAI_API_KEY=k", "BASH_ENV=/home/u/.bashenv", "NVM_DIR=/n"}}
	got := commandEnv(c, []string{"PATH=/usr/bin", "PWD=/work", "HOME=/home/u"},
		sandbox.EnvPolicy{Allow: []string{"GITHUB_TOKEN"}}, "/snap/x.sh")
	want := []string{"PATH=/profile/bin:/usr/bin", "GITHUB_TOKEN=t", restoreVar + "=/home/u/.bashenv", "NVM_DIR=/n",
		"PWD=/work", "BASH_ENV=/snap/x.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
