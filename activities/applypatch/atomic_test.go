package applypatch

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestApplyIsAtomicWhenAnOpFails(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "b.txt": "b\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: newdir/c.txt\n+c\n*** Update File: b.txt\n-zzz\n+b\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err == nil || !strings.Contains(err.Error(), `Update File "b.txt": hunk 1`) {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories created: %v", dirs)
	}
}

func TestApplyRollsBackWhenAWriteFails(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Delete File: d.txt\n*** Add File: x/y/new.txt\n+n\n*** Update File: b.txt\n-b\n+B\n*** End Patch")
	beforeWrite = func(abs string) error {
		if filepath.Base(abs) == "b.txt" {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { beforeWrite = nil }()
	_, err := Apply(root, p, Options{})
	if err == nil || !strings.Contains(err.Error(), "writing b.txt failed: disk full") || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories left behind: %v", dirs)
	}
}

func TestApplyRejectsEscapes(t *testing.T) {
	outside := t.TempDir()
	root := writeTree(t, map[string]string{"in.txt": "x\n"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Symlink(filepath.Join(root, "in.txt"), filepath.Join(root, "filelink")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"dot-dot":          "escapes the working directory",
		"symlinked parent": "outside the working directory",
		"symlink file":     "is a symbolic link",
	}
	ops := map[string]FileOp{
		"dot-dot":          {Kind: OpAdd, Path: "a/../../evil.txt", Contents: "x\n"},
		"symlinked parent": {Kind: OpAdd, Path: "link/evil.txt", Contents: "x\n"},
		"symlink file":     {Kind: OpDelete, Path: "filelink"},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Apply(root, &Patch{Hunks: []FileOp{ops[name]}}, Options{})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
			if got := readTree(t, outside); len(got) != 0 {
				t.Errorf("wrote outside the root: %v", got)
			}
		})
	}
	// The same escape is refused by Parse, too.
	if _, err := Parse("*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch"); err == nil {
		t.Error("Parse accepted ../evil.txt")
	}
}

func TestGuard(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "secret/k.txt": "k\n"}
	root := writeTree(t, before)
	realRoot, _ := filepath.EvalSymlinks(root)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: n.txt\n+n\n*** Delete File: secret/k.txt\n*** End Patch")
	var seen []string
	guard := func(abs string) error {
		seen = append(seen, abs)
		if strings.Contains(abs, "secret") {
			return errors.New("protected path")
		}
		return nil
	}
	_, err := Apply(root, p, Options{Guard: guard})
	if err == nil || !strings.Contains(err.Error(), "secret/k.txt: not allowed: protected path") {
		t.Fatalf("err = %v", err)
	}
	assertTree(t, root, before)
	want := []string{filepath.Join(realRoot, "a.txt"), filepath.Join(realRoot, "n.txt"), filepath.Join(realRoot, "secret", "k.txt")}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("guard saw %v, want %v", seen, want)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "d.txt": "d\n"}
	root := writeTree(t, before)
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n-a\n+b\n*** Delete File: d.txt\n*** Add File: n/new.txt\n+n\n*** End Patch")
	res, err := Preview(root, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "M sub/b.txt\nD d.txt\nA n/new.txt" {
		t.Errorf("Summary = %q", res.Summary)
	}
	if !strings.Contains(res.Changes[0].Diff, "-a\n+b\n") {
		t.Errorf("diff = %q", res.Changes[0].Diff)
	}
	assertTree(t, root, before)
	if dirs := listDirs(t, root); len(dirs) != 1 {
		t.Errorf("directories created: %v", dirs)
	}
}

func TestReapplyUpdateFailsCleanly(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "x\ny\n"})
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n x\n-y\n+z\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(root, p, Options{}); err == nil || !strings.Contains(err.Error(), "could not find the expected lines") {
		t.Fatalf("second apply: %v", err)
	}
	assertTree(t, root, map[string]string{"a.txt": "x\nz\n"})
}

func TestApplyKeepsFileMode(t *testing.T) {
	root := writeTree(t, map[string]string{"run.sh": "echo a\n"})
	full := filepath.Join(root, "run.sh")
	if err := os.Chmod(full, 0o755); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, "*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** End Patch")
	if _, err := Apply(root, p, Options{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", info.Mode().Perm())
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20"
	b := "1\n2\nTWO-B\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n20\n"
	got := unifiedDiff("a/f", "b/f", a, b)
	want := "--- a/f\n+++ b/f\n" +
		"@@ -1,5 +1,6 @@\n 1\n 2\n+TWO-B\n 3\n 4\n 5\n" +
		"@@ -16,5 +17,4 @@\n 16\n 17\n 18\n-19\n-20\n\\ No newline at end of file\n+20\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if d := unifiedDiff("a/f", "b/f", "x\n", "x\n"); d != "" {
		t.Errorf("equal inputs gave %q", d)
	}
	// The edit script must reproduce both sides for a messy input.
	x := strings.Split("a b c a b b a c d e f a", " ")
	y := strings.Split("c b a b a c e d a f", " ")
	var gotA, gotB []string
	for _, e := range diffLines(x, y) {
		if e.op != '+' {
			gotA = append(gotA, e.text)
		}
		if e.op != '-' {
			gotB = append(gotB, e.text)
		}
	}
	if strings.Join(gotA, " ") != strings.Join(x, " ") || strings.Join(gotB, " ") != strings.Join(y, " ") {
		t.Errorf("edit script does not rebuild inputs: %v / %v", gotA, gotB)
	}
}

func TestDiffLinesRebuildsInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n, alphabet int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + rng.IntN(alphabet)))
		}
		return out
	}
	check := func(a, b []string) {
		var gotA, gotB []string
		for _, e := range diffLines(a, b) {
			if e.op != '+' {
				gotA = append(gotA, e.text)
			}
			if e.op != '-' {
				gotB = append(gotB, e.text)
			}
		}
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
			t.Fatalf("edit script does not rebuild inputs\na=%v\nb=%v", a, b)
		}
	}
	for range 300 {
		check(gen(rng.IntN(30), 4), gen(rng.IntN(30), 4))
	}
	// Past maxEditCost the middle is replaced wholesale; still correct.
	check(gen(3000, 26), gen(3000, 26))
}
