package shellsnap

import (
	"os"
	"path/filepath"
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
		{[]string{"zsh", "-lc", "ls"}, true, []string{"zsh", "-c", "ls"}},
		{[]string{"/usr/bin/zsh", "-cl", "ls"}, true, []string{"/usr/bin/zsh", "-c", "ls"}},
		{[]string{"zsh", "--login", "-c", "ls", "z"}, true, []string{"zsh", "-c", "ls", "z"}},
		{[]string{"zsh", "-l", "-c", "ls"}, true, []string{"zsh", "-c", "ls"}},
		{[]string{"zsh", "-lic", "ls"}, false, nil},
		{[]string{"fish", "-lc", "ls"}, false, nil},
		{[]string{"bashful", "-lc", "ls"}, false, nil},
		{[]string{"ls", "-lc", "x"}, false, nil},
	}
	for _, tc := range cases {
		l, ok := ParseLogin(tc.argv)
		if ok != tc.ok || (ok && !slices.Equal(l.nonLogin(), tc.want)) {
			t.Errorf("ParseLogin(%q) = %+v, %v; want %q, %v", tc.argv, l, ok, tc.want, tc.ok)
		}
	}
	// sh is recognized when it is dash (as /bin/sh is here and in CI);
	// dash takes no --login.
	if isDash("sh") {
		for _, argv := range [][]string{{"sh", "-lc", "ls"}, {"/bin/sh", "-l", "-c", "ls"}, {"dash", "-cl", "ls"}} {
			if _, ok := ParseLogin(argv); !ok {
				t.Errorf("ParseLogin(%q) not recognized", argv)
			}
		}
	}
	if _, ok := ParseLogin([]string{"dash", "--login", "-c", "ls"}); ok {
		t.Error("dash --login -c recognized")
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
	bashSections := []string{"funcs", "aliases", "shopt", "set"}
	c, err := parseCapture([]byte(full), m, bashSections)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.env, []string{"A=1", "B=two\nlines"}) || !strings.Contains(c.sec["funcs"], "echo") ||
		c.sec["aliases"] != "alias ll='ls -l'\n" || c.sec["shopt"] != "shopt -s extglob\n" || c.sec["set"] != "set -o braceexpand\n" {
		t.Errorf("got %+v", c)
	}
	for name, out := range map[string]string{
		"no snapshot":    "the profile exited\n",
		"cut":            full[:strings.Index(full, sec("shopt"))],
		"other nonce":    strings.ReplaceAll(full, m, "interpreter-snapshot-other"),
		"no environment": sec("env") + sec("funcs") + sec("aliases") + sec("shopt") + sec("set") + sec("end"),
	} {
		if _, err := parseCapture([]byte(out), m, bashSections); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRestoreScriptOrdersOptionsAndDropsFixedOnes(t *testing.T) {
	s := restoreScript(captured{sec: map[string]string{"funcs": "f () \n{ \n    :\n}\n", "aliases": "alias x='y'\n",
		"shopt": "shopt -s extglob\nshopt -s login_shell\nnot an option\n", "set": "set -o braceexpand\nset +o history\n"}})
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
	got := commandEnv(bashShell, c, []string{"PATH=/usr/bin", "PWD=/work", "HOME=/home/u"},
		sandbox.EnvPolicy{Allow: []string{"GITHUB_TOKEN"}}, "/snap/x.sh")
	want := []string{"PATH=/profile/bin:/usr/bin", "GITHUB_TOKEN=t", restoreVar + "=/home/u/.bashenv", "NVM_DIR=/n",
		"PWD=/work", "BASH_ENV=/snap/x.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestZshRestoreScriptOrdersOptions(t *testing.T) {
	s := zshRestoreScript(captured{sec: map[string]string{"funcs": "f () {\n\t:\n}\n", "aliases": "alias x=y\n",
		"setopt": "extendedglob\nlogin\nerrexit\nnounset\nnohashdirs\n$(evil)\n", "fpath": "fpath=(/a /b)\n"}})
	at := func(sub string) int {
		i := strings.Index(s, sub)
		if i < 0 {
			t.Fatalf("%q missing:\n%s", sub, s)
		}
		return i
	}
	order := []int{at(zdotdirVar), at("setopt extendedglob"), at("setopt nohashdirs"), at("fpath=(/a /b)"), at("f () {"),
		at("alias x=y"), at("setopt errexit"), at("setopt nounset")}
	if !slices.IsSorted(order) {
		t.Errorf("wrong order %v:\n%s", order, s)
	}
	for _, dropped := range []string{"setopt login", "evil"} {
		if strings.Contains(s, dropped) {
			t.Errorf("%q kept:\n%s", dropped, s)
		}
	}
}

func TestZshCommandEnv(t *testing.T) {
	c := captured{env: []string{"PATH=/p", "ZDOTDIR=/home/u/.config/zsh", "BASH_ENV=/b", "SHLVL=1"}}
	got := commandEnv(zshShell, c, []string{"PWD=/work"}, sandbox.EnvPolicy{}, "/snap/x.zsh/.zshenv")
	want := []string{"PATH=/p", zdotdirVar + "=/home/u/.config/zsh", "BASH_ENV=/b", "PWD=/work", "ZDOTDIR=/snap/x.zsh"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSourcedFiles(t *testing.T) {
	home := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	profile := write(".profile", `. "$HOME/.cargo/env"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"  # This loads nvm
if [ -f ~/.bashrc ]; then . ~/.bashrc; fi
source '`+home+`/quoted'
. "$UNSET_VAR/x"
eval "$(pyenv init -)"
. ./relative
. "$HOME/missing"
echo . "$HOME/echoed"
`)
	bashrc := write(".bashrc", "for f in ~/.bash.d/*; do . $f; done\n")
	cargo := write(".cargo/env", `export PATH="$HOME/.cargo/bin:$PATH"; . "${HOME}/.cargo/deeper"`+"\n")
	deeper := write(".cargo/deeper", "\n")
	nvm := write(".nvm/nvm.sh", "\n")
	quoted := write("quoted", "\n")
	write("echoed", "\n")
	got := sourcedFiles([]string{profile, bashrc}, []string{"NVM_DIR=" + home + "/.nvm"}, home)
	want := []string{cargo, deeper, nvm, quoted}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
