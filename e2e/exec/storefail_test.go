package exec

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// readOnly makes dir and everything under it unwritable, for root too
// (root ignores file modes; the immutable attribute binds it), and undoes
// that when the test ends.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Getuid() != 0 {
		if out, err := exec.Command("chmod", "-R", "a-w", dir).CombinedOutput(); err != nil {
			t.Fatalf("chmod: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", dir).Run() })
		return
	}
	if out, err := exec.Command("chattr", "-R", "+i", dir).CombinedOutput(); err != nil {
		t.Fatalf("chattr: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-R", "-i", dir).Run() })
}

// A store the worker cannot write fails the step cheaply: the model is
// asked once, each retry writes the kept answer again, the retry lines
// say that the store failed (not the model call), and the turn fails
// with the store's error.
func TestUnwritableStoreAsksTheModelOnce(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "an answer never kept"}}}}})
	dev := e.StartDev()
	defer dev.Kill()
	store := filepath.Join(e.Home, "store")
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	readOnly(t, store)

	p := e.Exec("-c", "store.max_retries=2", "hello")
	if code := p.Wait(90 * time.Second); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, p.Stderr)
	}
	stderr := p.Stderr.String()
	for _, want := range []string{"retrying the store write (attempt 2/3 in 1s): store: ", "retrying the store write (attempt 3/3 in 2s): store: ", "(gave up after 3 attempts)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "store") {
			t.Logf("%s", l)
		}
	}
	if strings.Contains(stderr, "retrying model call") {
		t.Errorf("a store failure is shown as a model call's:\n%s", stderr)
	}
	if n := len(e.Model.Server.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
}
