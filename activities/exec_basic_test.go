package activities

import (
	"context"
	"os"
	"strings"
	"testing"
)

func newTestActivities(t *testing.T) *Activities {
	t.Helper()
	a, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestExec(t *testing.T) {
	a := newTestActivities(t)
	dir := t.TempDir()
	cases := []struct {
		name     string
		in       ExecInput
		exit     int
		contains string
		timedOut bool
	}{
		{"success", ExecInput{Command: []string{"echo", "hello"}}, 0, "hello", false},
		{"exit code", ExecInput{Command: []string{"bash", "-c", "echo oops >&2; exit 3"}}, 3, "oops", false},
		{"runs in cwd", ExecInput{Command: []string{"pwd"}, Cwd: dir}, 0, dir, false},
		{"not found", ExecInput{Command: []string{"no-such-command-xyz"}}, 127, "no-such-command-xyz", false},
		{"timeout kills", ExecInput{Command: []string{"sleep", "5"}, TimeoutMs: 100}, 137, "timed out", true},
		{"output is cut head and tail", ExecInput{Command: []string{"bash", "-c", "echo START; head -c 50000 /dev/zero | tr '\\0' x; echo; echo END"}, MaxOutput: 1000}, 0, "bytes omitted", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.ThreadID, tc.in.CallID = "th", strings.ReplaceAll(tc.name, " ", "-")
			out, err := a.Exec(context.Background(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitCode != tc.exit || !strings.Contains(out.Output, tc.contains) || out.TimedOut != tc.timedOut {
				t.Fatalf("exit %d timedOut %v output %q", out.ExitCode, out.TimedOut, out.Output)
			}
			if tc.in.MaxOutput > 0 {
				if len(out.Output) > tc.in.MaxOutput+200 || !strings.HasPrefix(out.Output, "START") || !strings.Contains(out.Output, "END") {
					t.Fatalf("cut output wrong (%d bytes): %q", len(out.Output), out.Output)
				}
				full, err := os.ReadFile(out.FullOutput)
				if err != nil || len(full) < 50000 {
					t.Fatalf("full output not kept: %d bytes, %v", len(full), err)
				}
			}
		})
	}
}

func TestExecAddsTheWorkersCommandEnv(t *testing.T) {
	a := newTestActivities(t)
	a.CommandEnv = map[string]string{"HOST_TAG": "a"}
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c", Command: []string{"bash", "-c", "echo $HOST_TAG"}})
	if err != nil || strings.TrimSpace(out.Output) != "a" {
		t.Fatalf("%v %q", err, out.Output)
	}
}
