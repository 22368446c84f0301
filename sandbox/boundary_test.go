package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTransformRoundTrips(t *testing.T) {
	for _, b := range []Boundary{
		{Mode: ReadOnly},
		{Mode: ReadOnly, Protected: []string{"/h"}, ReportFD: 3},
		{Mode: WorkspaceWrite, WritableRoots: []string{"/a", "/b c"}, Network: true, Protected: []string{"/h"}, ReportFD: 3, LifelineFD: 4},
		{Mode: DangerFullAccess, ReportFD: 3, LifelineFD: 4},
		{Mode: DangerFullAccess, ReportFD: 3, LifelineFD: 4, TermGrace: 1500 * time.Millisecond},
	} {
		argv := []string{"bash", "-lc", "echo --mode -- x"}
		out := Transform("/bin/interpreter", argv, b)
		if out[0] != "/bin/interpreter" || out[1] != "sandbox" || out[2] != "linux" {
			t.Fatalf("not a helper call: %q", out)
		}
		got, gotArgv, err := ParseHelperArgs(out[3:])
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if !reflect.DeepEqual(got, b) || !reflect.DeepEqual(gotArgv, argv) {
			t.Errorf("round trip of %+v: got %+v %q", b, got, gotArgv)
		}
	}
}

func TestParseHelperArgsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "yolo", "--", "ls"}, "valid: read-only, workspace-write, danger-full-access"},
		{[]string{"--mode", "read-only", "ls"}, "unknown flag"},
		{[]string{"--mode", "read-only"}, "missing --"},
		{[]string{"--mode", "read-only", "--"}, "no command"},
		{[]string{"--writable-root"}, "needs a value"},
		{[]string{"--term-grace", "soon", "--mode", "read-only", "--", "ls"}, "invalid duration"},
	} {
		if _, _, err := ParseHelperArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestWritableRoots(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	cwd := filepath.Join(dir, "cwd")
	extra := filepath.Join(dir, "extra")
	link := filepath.Join(dir, "link")
	for _, d := range []string{cwd, extra} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(extra, link); err != nil {
		t.Fatal(err)
	}
	got, err := WritableRoots(cwd, []string{link, extra}, "", filepath.Join(dir, "no-tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{cwd, extra}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q (symlinks resolved, duplicates and missing temp dirs dropped)", got, want)
	}
	if _, err := WritableRoots(cwd, []string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing extra root: %v", err)
	}
	if _, err := WritableRoots(cwd, []string{"relative"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative root: %v", err)
	}
}

func TestProtectedUnder(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(dir, "root")
	home := filepath.Join(root, "home")
	other := filepath.Join(dir, "other")
	for _, d := range []string{filepath.Join(root, ".git"), home, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := ProtectedUnder([]string{root}, []string{home, other, filepath.Join(root, "missing")})
	if want := []string{filepath.Join(root, ".git"), home}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFilterEnv(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=gh", "DB_PASSWORD=pw", "AWS_SECRET_ACCESS_KEY=x", "HOME=/root", "FOO=1"}
	got := FilterEnv(env, EnvPolicy{})
	if want := []string{"PATH=/bin", "HOME=/root", "FOO=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("default: got %q, want %q", got, want)
	}
	got = FilterEnv(env, EnvPolicy{Allow: []string{"github_token"}, Exclude: []string{"FOO"}})
	if want := []string{"PATH=/bin", "GITHUB_TOKEN=gh", "HOME=/root"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow + exclude: got %q, want %q", got, want)
	}
	got = FilterEnv(env, EnvPolicy{IgnoreDefaultExcludes: true, IncludeOnly: []string{"*KEY*", "PATH"}})
	if want := []string{"PATH=/bin", "OPENAI_API_KEY=sk", "AWS_SECRET_ACCESS_KEY=x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("include_only: got %q, want %q", got, want)
	}
}

func TestLikelyDenied(t *testing.T) {
	for _, tc := range []struct {
		code int
		out  string
		want bool
	}{
		{1, "sh: 1: cannot create /etc/x: Permission denied", true},
		{1, "touch: cannot touch 'a': Read-only file system", true},
		{6, "curl: (6) Could not resolve host: example.com", true},
		{0, "Permission denied", false},
		{1, "FAIL: TestFoo", false},
	} {
		if got := LikelyDenied(tc.code, tc.out); got != tc.want {
			t.Errorf("LikelyDenied(%d, %q) = %v", tc.code, tc.out, got)
		}
	}
}
