package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// TestMain lets this test binary act as the sandbox helper: Exec re-runs
// os.Executable() with the helper subcommand.
func TestMain(m *testing.M) {
	sandbox.RunHelperIfRequested()
	runWorkerIfRequested()
	os.Exit(m.Run())
}

func newActs(t testing.TB) *Activities {
	t.Helper()
	a, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func requireSandbox(t *testing.T) {
	t.Helper()
	if err := sandbox.Available(); err != nil || os.Geteuid() != 0 {
		t.Skipf("this host cannot enforce the sandbox (landlock: %v, euid %d)", err, os.Geteuid())
	}
}

func sh(script string) []string { return []string{"sh", "-c", script} }

func TestExecSandboxedWritesOnlyInTheWorkspace(t *testing.T) {
	requireSandbox(t)
	a := newActs(t)
	ws := t.TempDir()
	// The store lies under the temp dir, a writable root; as the
	// interpreter home it stays read-only.
	a.Home = a.Store.Dir()
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: ws, SandboxMode: "workspace-write",
		Command: sh("echo in > in.txt && cat in.txt && echo out > " + a.Store.Dir() + "/x.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Sandboxed || out.ExitCode == 0 || !out.SandboxDenied || !strings.Contains(out.Output, "in\n") {
		t.Errorf("got %+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Error("the write inside the workspace did not happen")
	}
	if _, err := os.Stat(filepath.Join(a.Store.Dir(), "x.txt")); err == nil {
		t.Error("the write into the interpreter home happened")
	}
}

func TestExecReadOnlyWritesNothing(t *testing.T) {
	requireSandbox(t)
	a := newActs(t)
	ws := t.TempDir()
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: ws, SandboxMode: "read-only",
		Command: sh("ls . && touch new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode == 0 || !out.SandboxDenied {
		t.Errorf("got %+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("read-only wrote a file")
	}
}

// TestExecDoesNotPassSecrets: a variable that looks like a secret is not
// in the command's environment unless the policy allows it.
func TestExecDoesNotPassSecrets(t *testing.T) {
	t.Setenv("INTERPRETER_TEST_API_KEY", "sk-very-secret")
	t.Setenv("INTERPRETER_TEST_PLAIN", "visible")
	a := newActs(t)
	for _, mode := range []string{"danger-full-access", "workspace-write"} {
		if mode != "danger-full-access" && (sandbox.Available() != nil || os.Geteuid() != 0) {
			continue
		}
		out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c-" + mode, Cwd: t.TempDir(), SandboxMode: mode,
			Command: sh(`echo "key=[$INTERPRETER_TEST_API_KEY] plain=[$INTERPRETER_TEST_PLAIN]"; env | grep -c sk-very-secret`)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Output, "key=[] plain=[visible]") || !strings.Contains(out.Output, "\n0\n") {
			t.Errorf("%s: %q", mode, out.Output)
		}
	}
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c-allow", Cwd: t.TempDir(), SandboxMode: "danger-full-access",
		EnvPolicy: &sandbox.EnvPolicy{Allow: []string{"INTERPRETER_TEST_API_KEY"}},
		Command:   sh(`echo "key=[$INTERPRETER_TEST_API_KEY]"`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Output, "key=[sk-very-secret]") {
		t.Errorf("allowed secret not passed: %q", out.Output)
	}
}

// TestExecRefusesWhenTheSandboxCannotBeApplied: fail closed, the command
// does not run.
func TestExecRefusesWhenTheSandboxCannotBeApplied(t *testing.T) {
	a := newActs(t)
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: ws, SandboxMode: "workspace-write",
		WritableRoots: []string{filepath.Join(ws, "missing")}, Command: sh("touch " + marker)})
	if err != nil {
		t.Fatal(err)
	}
	if out.SandboxError == "" || !strings.Contains(out.SandboxError, "does not exist") || out.ExitCode != sandbox.ExitSetupFailed {
		t.Errorf("got %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	// The helper's own refusal comes back through the report pipe.
	a.Executable = writeScript(t, "#!/bin/sh\necho 'cannot apply the read-only sandbox: no Landlock' >&3\nexit 125\n")
	out, err = a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c2", Cwd: ws, SandboxMode: "read-only", Command: sh("touch " + marker)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.SandboxError, "no Landlock") || out.ExitCode != sandbox.ExitSetupFailed {
		t.Errorf("got %+v", out)
	}
	// An unknown mode is refused before anything starts.
	out, _ = a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c3", Cwd: ws, SandboxMode: "bogus", Command: sh("touch " + marker)})
	if !strings.Contains(out.SandboxError, "valid: read-only, workspace-write, danger-full-access") {
		t.Errorf("got %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}

func TestExecUnsandboxedWhenApproved(t *testing.T) {
	a := newActs(t)
	outside := filepath.Join(t.TempDir(), "x")
	out, err := a.Exec(context.Background(), ExecInput{ThreadID: "th", CallID: "c1", Cwd: t.TempDir(), SandboxMode: "read-only",
		Unsandboxed: true, Command: sh("echo x > " + outside)})
	if err != nil || out.ExitCode != 0 || out.Sandboxed {
		t.Fatalf("%+v %v", out, err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Error("approved unsandboxed command did not write")
	}
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "helper.sh")
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
