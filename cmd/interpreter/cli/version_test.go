package cli

import (
	"bytes"
	"regexp"
	"runtime/debug"
	"testing"
)

func TestVersionFlagAndCommand(t *testing.T) {
	want := regexp.MustCompile(`^interpreter 0\.1\.0 \((unknown|[0-9a-f]{7}(-dirty)?)\)\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var out, errOut bytes.Buffer
		if code := Run(args, Stdio{In: &bytes.Buffer{}, Out: &out, Err: &errOut}); code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, errOut.String())
		}
		if !want.MatchString(out.String()) {
			t.Errorf("%v printed %q", args, out.String())
		}
	}
}

func TestBuildCommit(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "e65bd54c0ffee0123456789abcdef0123456789a"}}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "unknown"},
		{rev, "e65bd54"},
		{append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "false"}), "e65bd54"},
		{append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "e65bd54-dirty"},
	} {
		if got := buildCommit(c.settings); got != c.want {
			t.Errorf("buildCommit(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}

// The version clients see is the release with the Codex protocol release
// as build metadata: a Codex 0.171 client does not order it below itself.
func TestClientVersion(t *testing.T) {
	if Version != "0.1.0+codex.0.171.0" {
		t.Fatalf("Version = %q", Version)
	}
}
