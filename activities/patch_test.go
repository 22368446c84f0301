package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func patchWorld(t *testing.T) (*Activities, string) {
	t.Helper()
	a := newActs(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git/hooks", "home"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.Home = filepath.Join(ws, "home")
	return a, ws
}

func addFile(path string) string {
	return "*** Begin Patch\n*** Add File: " + path + "\n+evil\n*** End Patch"
}

func TestPatchInsideTheWorkspaceApplies(t *testing.T) {
	a, ws := patchWorld(t)
	out, err := a.ApplyPatch(context.Background(), PatchInput{ThreadID: "th", CallID: "p1", Cwd: ws, SandboxMode: "workspace-write",
		Patch: "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Add File: sub/n.txt\n+n\n*** End Patch"})
	if err != nil || !out.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "b\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// TestPatchEscapesAreStopped: nothing is written for any of them.
func TestPatchEscapesAreStopped(t *testing.T) {
	for _, tc := range []struct {
		name, mode, patch string
		approval          bool
		want              string
	}{
		{"read-only", "read-only", addFile("new.txt"), false, "the sandbox is read-only"},
		{"into .git/hooks", "workspace-write", addFile(".git/hooks/pre-commit"), true, "protected path"},
		{"into the interpreter home", "workspace-write", addFile("home/config.toml"), true, "protected path"},
		{"with ..", "workspace-write", addFile("../outside.txt"), false, "escapes the working directory"},
		{"through a symlink that points outside", "workspace-write", addFile("link/new.txt"), false, "outside the working directory"},
		{"absolute path", "danger-full-access", addFile("/tmp/x.txt"), false, "absolute path"},
		{"a patch that does not apply", "workspace-write", "*** Begin Patch\n*** Update File: a.txt\n-nope\n+b\n*** Add File: z.txt\n+z\n*** End Patch", false, "No files were changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ws := patchWorld(t)
			outside := t.TempDir()
			if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
				t.Fatal(err)
			}
			before := tree(t, filepath.Dir(ws))
			in := PatchInput{ThreadID: "th", CallID: "p1", Cwd: ws, SandboxMode: tc.mode, Patch: tc.patch}
			out, err := a.ApplyPatch(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if out.Success || out.NeedsApproval != tc.approval || !strings.Contains(out.Output, tc.want) {
				t.Errorf("got %+v, want approval=%v and %q", out, tc.approval, tc.want)
			}
			if tc.approval && !strings.Contains(out.Diff, "+evil") {
				t.Errorf("the approval does not show the diff: %q", out.Diff)
			}
			if after := tree(t, filepath.Dir(ws)); after != before {
				t.Errorf("the disk changed:\n%s\n---\n%s", before, after)
			}
			if !tc.approval {
				return
			}
			// A person approved: the same call applies unsandboxed.
			in.Unsandboxed = true
			out, err = a.ApplyPatch(context.Background(), in)
			if err != nil || !out.Success {
				t.Fatalf("approved run: %+v %v", out, err)
			}
		})
	}
}

// tree renders every file under dir (outside the test's stores) with its
// content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(p, string(filepath.Separator)+"patches") {
			return nil
		}
		b.WriteString(p)
		if info.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" = " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
