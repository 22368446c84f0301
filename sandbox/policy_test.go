package sandbox

import "testing"

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
	}
	for _, c := range cases {
		if got := IsKnownSafe(c.argv); got != c.safe {
			t.Errorf("IsKnownSafe(%q) = %v, want %v", c.argv, got, c.safe)
		}
	}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		p    Policy
		argv []string
		want Decision
	}{
		{Untrusted, []string{"ls"}, Run},
		{Untrusted, []string{"make"}, Ask},
		{OnRequest, []string{"make"}, Run},
		{OnFailure, []string{"make"}, Run},
		{Never, []string{"rm", "x"}, Run},
	}
	for _, c := range cases {
		if got := Decide(c.p, c.argv); got != c.want {
			t.Errorf("Decide(%s, %q) = %s, want %s", c.p, c.argv, got, c.want)
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
	f.Fuzz(func(t *testing.T, s string) {
		_ = IsKnownSafe([]string{"bash", "-lc", s})
	})
}
