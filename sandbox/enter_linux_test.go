//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets this test binary act as the helper: the tests run
// commands through Transform with os.Args[0] as the executable, so the
// restrictions land on a child process, never on the test process.
func TestMain(m *testing.M) {
	RunHelperIfRequested()
	os.Exit(m.Run())
}

// requireSandbox skips on hosts that cannot enforce the sandbox.
func requireSandbox(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("namespaces need root")
	}
}

// run executes a shell script inside b and returns its combined output
// and exit code.
func run(t *testing.T, b Boundary, script string, env ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := Transform(exe, []string{"sh", "-c", script}, b)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("running %q: %v", script, err)
	return "", -1
}

// world is a workspace (a writable root with a .git), an outside
// directory, and an interpreter home inside the workspace.
type world struct {
	root, outside, home string
}

func newWorld(t *testing.T) world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "ws", "home")}
	for _, d := range []string{w.root, w.outside, w.home, filepath.Join(w.root, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(w.outside, "keep.txt"), filepath.Join(w.home, "config.toml"), filepath.Join(w.root, ".git", "HEAD")} {
		if err := os.WriteFile(f, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) boundary(mode Mode) Boundary {
	return Boundary{Mode: mode, WritableRoots: []string{w.root}, Protected: []string{w.home}}
}

// snapshot lists every file under dir with its content, to assert that
// nothing changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		} else {
			m[p] = info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func requireSame(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range after {
		if before[k] != v {
			t.Errorf("%s changed or appeared: %q -> %q", k, before[k], v)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s disappeared", k)
		}
	}
}

func TestWorkspaceWriteWritesInsideTheRoot(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	out, code := run(t, w.boundary(WorkspaceWrite), "cd "+w.root+" && mkdir -p sub && echo hi > sub/a.txt && mv sub/a.txt b.txt && cat b.txt && echo x > /dev/null")
	if code != 0 || !strings.Contains(out, "hi") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestReadOnlyReadsButWritesNothing(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	before := snapshot(t, filepath.Dir(w.root))
	out, code := run(t, w.boundary(ReadOnly), "cat "+w.outside+"/keep.txt; echo x > "+w.root+"/new.txt; echo y > "+w.outside+"/keep.txt; echo z >/dev/null && echo devnull-ok")
	if !strings.Contains(out, "original") || !strings.Contains(out, "devnull-ok") {
		t.Errorf("read-only could not read or use /dev/null: %s", out)
	}
	if strings.Count(out, "Permission denied") != 2 {
		t.Errorf("want two denied writes, got exit %d: %s", code, out)
	}
	requireSame(t, before, snapshot(t, filepath.Dir(w.root)))
}

// TestEscapesAreDenied: every way out of the writable roots is refused
// and leaves the disk as it was.
func TestEscapesAreDenied(t *testing.T) {
	requireSandbox(t)
	for _, tc := range []struct {
		name   string
		script func(w world) string
	}{
		{"outside the roots", func(w world) string { return "echo x > " + w.outside + "/keep.txt; echo y > " + w.outside + "/new.txt" }},
		{"through a symlink that points outside", func(w world) string {
			return "cd " + w.root + " && echo x > link/keep.txt; echo y > link/new.txt"
		}},
		{"with ..", func(w world) string {
			return "cd " + w.root + " && echo x > ../outside/keep.txt; echo y > ../outside/new.txt"
		}},
		{"into .git/hooks", func(w world) string {
			return "cd " + w.root + " && echo x > .git/hooks/pre-commit; echo y > .git/HEAD; rm -f .git/HEAD; mv .git .git2"
		}},
		{"into the interpreter home", func(w world) string {
			return "echo x > " + w.home + "/config.toml; echo y > " + w.home + "/new; rm -f " + w.home + "/config.toml"
		}},
		{"remounting the protection away", func(w world) string {
			return "mount -o remount,rw " + w.root + "/.git; umount " + w.root + "/.git; echo x > " + w.root + "/.git/hooks/pre-commit"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if err := os.Symlink(w.outside, filepath.Join(w.root, "link")); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, filepath.Dir(w.root))
			out, code := run(t, w.boundary(WorkspaceWrite), tc.script(w)+"; echo done")
			if !strings.Contains(out, "done") {
				t.Fatalf("the script did not run (exit %d): %s", code, out)
			}
			if !strings.Contains(out, "Permission denied") && !strings.Contains(out, "Read-only file system") &&
				!strings.Contains(out, "not permitted") {
				t.Errorf("no denial reported: %s", out)
			}
			requireSame(t, before, snapshot(t, filepath.Dir(w.root)))
		})
	}
}

// TestNoNetwork: a server listening on 127.0.0.1 outside is unreachable
// from read-only and from workspace-write, and receives nothing.
func TestNoNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp needs no tool that may be missing.
	script := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && echo CONNECTED"
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		w := newWorld(t)
		out, code := runBash(t, w.boundary(mode), script)
		if code == 0 || strings.Contains(out, "CONNECTED") {
			t.Errorf("%s: connected to the host's 127.0.0.1:%d (exit %d): %s", mode, port, code, out)
		}
	}
	// The same from outside the sandbox works, so the test can fail.
	if c, err := net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	<-accepted
	select {
	case <-accepted:
		t.Error("the listener accepted a connection from the sandbox")
	default:
	}
	// With network access, workspace-write reaches it.
	w := newWorld(t)
	b := w.boundary(WorkspaceWrite)
	b.Network = true
	if out, code := runBash(t, b, script); code != 0 || !strings.Contains(out, "CONNECTED") {
		t.Errorf("network_access = true did not reach the listener (exit %d): %s", code, out)
	}
}

func runBash(t *testing.T, b Boundary, script string) (string, int) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	return run(t, b, "exec bash -c '"+script+"'")
}

// TestNoWayBackToTheHostNetwork: root inside the sandbox has no
// capability left to join the host's network namespace.
func TestNoWayBackToTheHostNetwork(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("nsenter"); err != nil {
		t.Skip("no nsenter")
	}
	w := newWorld(t)
	out, code := run(t, w.boundary(WorkspaceWrite), "nsenter --net=/proc/1/ns/net true && echo ESCAPED; grep CapEff /proc/self/status")
	if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "0000000000000000") {
		t.Errorf("exit %d: %s", code, out)
	}
}

// TestSetupFailureRefusesTheCommand: a writable root that does not exist
// stops the helper before the command runs, with its own exit code and a
// message on the report descriptor.
func TestSetupFailureRefusesTheCommand(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	marker := filepath.Join(w.outside, "ran")
	b := Boundary{Mode: WorkspaceWrite, WritableRoots: []string{filepath.Join(w.root, "missing")}, ReportFD: 3}
	exe, _ := os.Executable()
	argv := Transform(exe, []string{"sh", "-c", "touch " + marker}, b)
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{wr}
	err = cmd.Start()
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	_, _ = report.ReadFrom(r)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitSetupFailed {
		t.Errorf("exit: %v", err)
	}
	if !strings.Contains(report.String(), "writable root") || !strings.Contains(report.String(), "not an existing directory") {
		t.Errorf("report: %q", report.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}
