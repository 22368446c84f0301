package exec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// fakeRehash does what `pyenv rehash` does with its lock: take it with
// noclobber, or wait up to a minute for whoever holds it, and remove it
// in an EXIT trap. While $HOME/hang exists it works a long while holding
// the lock (and says so in $HOME/held).
const fakeRehash = `lock="$HOME/.pyenv/shims/.pyenv-shim"
for i in $(seq 600); do
  if ( set -o noclobber; echo > "$lock" ) 2>/dev/null; then
    trap 'rm -f "$lock"' EXIT
    if [ -e "$HOME/hang" ]; then touch "$HOME/held"; sleep 60; fi
    exit 0
  fi
  sleep 0.1
done
echo "pyenv: cannot rehash: $lock exists" >&2
exit 1
`

// startDevWith is [e2etest.Env.StartDev] with more environment variables.
func (e *env) startDevWith(environ []string) *e2etest.Proc {
	e.T.Helper()
	p := e.StartWith(environ, append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port)}, e.Config()...)...)
	p.WaitFor(func() bool { return strings.Contains(p.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	return p
}

// A SIGKILL of `interpreter dev` while a shell snapshot's login shell is
// in the middle of a pyenv-like rehash does not leave the rehash lock
// behind: the profile gets SIGTERM and its trap removes the lock, so the
// user's next login shell starts at once instead of waiting a minute for
// it. The thread then finishes on a new dev server.
func TestDevKilledMidProfileLeavesNoPyenvLock(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("shell", `{"command":["bash","-lc","echo ran >> runs.txt"]}`)}},
		{Text: "done after the profile"},
	}}}})
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".pyenv", "shims"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".pyenv/rehash": fakeRehash,
		".bash_profile": `bash "$HOME/.pyenv/rehash"` + "\n",
		"hang":          "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lock := filepath.Join(home, ".pyenv", "shims", ".pyenv-shim")
	dev := e.startDevWith([]string{"HOME=" + home})
	run := e.Exec("-c", "approval_policy=never", "-c", "sandbox_mode=danger-full-access", "rehash and run")
	e2etest.WaitUntil(t, func() bool { _, err := os.Stat(filepath.Join(home, "held")); return err == nil },
		60*time.Second, "the snapshot's profile to hold the rehash lock", func() string { return run.Stderr.String() })
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("no lock while the profile holds it: %v", err)
	}
	if err := os.Remove(filepath.Join(home, "hang")); err != nil { // the next profile runs through
		t.Fatal(err)
	}
	dev.Kill()
	e2etest.WaitUntil(t, func() bool { _, err := os.Stat(lock); return os.IsNotExist(err) },
		5*time.Second, "the rehash lock to be removed", func() string { return "" })

	// The user's own login shell is not held up by a stale lock.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	login := exec.CommandContext(ctx, "bash", "-lc", "true")
	login.Env = append(os.Environ(), "HOME="+home)
	began := time.Now()
	if out, err := login.CombinedOutput(); err != nil {
		t.Fatalf("bash -lc true: %v\n%s", err, out)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("a login shell took %v after the kill: it waited for a stale rehash lock", took)
	}

	dev2 := e.startDevWith([]string{"HOME=" + home})
	defer dev2.Kill()
	if code := run.Wait(120 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstderr:\n%s", code, run.Stderr)
	}
	if !strings.Contains(run.Stdout.String()+run.Stderr.String(), "done after the profile") {
		t.Errorf("the thread did not finish:\n%s", run.Stderr)
	}
	b, _ := os.ReadFile(filepath.Join(e.Work, "runs.txt"))
	if n := strings.Count(string(b), "ran"); n > 1 {
		t.Errorf("the command ran %d times, want at most 1", n)
	}
	t.Logf("runs.txt after the restart: %q", b)
}
