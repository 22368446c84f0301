package activities

import (
	"context"
	"strings"
	"testing"
)

func sessionCmd(t *testing.T, script string, tty bool, yieldMs int64) ExecCommandInput {
	return ExecCommandInput{Exec: ExecInput{ThreadID: "th", CallID: "c-" + t.Name(), Cwd: t.TempDir(),
		SandboxMode: "danger-full-access", Command: []string{"bash", "-c", script}},
		SessionID: 1000, TTY: tty, YieldMs: yieldMs, MaxTokens: 10000}
}

func TestSessionTalksThroughATerminal(t *testing.T) {
	a := newTestActivities(t)
	a.SessionQueue = "q-sessions"
	ctx := context.Background()
	out, err := a.ExecCommand(ctx, sessionCmd(t, `echo ready; while read l; do echo "got:$l"; [ "$l" = quit ] && exit 7; done`, true, 500))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Running || out.Queue != "q-sessions" || !strings.Contains(out.Output, "ready") {
		t.Fatalf("exec_command: %+v", out)
	}
	out, err = a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", CallID: "w1", SessionID: 1000, Chars: "hello\n", YieldMs: 300, MaxTokens: 100})
	if err != nil || !out.Running || !strings.Contains(out.Output, "got:hello") {
		t.Fatalf("write_stdin: %+v %v", out, err)
	}
	out, err = a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", CallID: "w2", SessionID: 1000, Chars: "quit\n", YieldMs: 5000, MaxTokens: 100})
	if err != nil || out.Running || out.ExitCode != 7 || !strings.Contains(out.Output, "got:quit") {
		t.Fatalf("write_stdin quit: %+v %v", out, err)
	}
	// The session is gone once its process ended.
	out, _ = a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", CallID: "w3", SessionID: 1000, YieldMs: 10})
	if !out.Unknown {
		t.Fatalf("write_stdin after exit: %+v", out)
	}
}

func TestSessionThatEndsWithinTheYieldReturnsItsExitCode(t *testing.T) {
	a := newTestActivities(t)
	out, err := a.ExecCommand(context.Background(), sessionCmd(t, "echo done; exit 3", false, 10000))
	if err != nil || out.Running || out.ExitCode != 3 || out.Output != "done\n" || out.WallMs >= 5000 {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestPipeSessionRefusesInputAndCloses(t *testing.T) {
	a := newTestActivities(t)
	ctx := context.Background()
	out, err := a.ExecCommand(ctx, sessionCmd(t, "echo up; sleep 60", false, 300))
	if err != nil || !out.Running {
		t.Fatalf("%+v %v", out, err)
	}
	out, _ = a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", SessionID: 1000, Chars: "x\n", YieldMs: 10})
	if !out.StdinClosed || !out.Running {
		t.Fatalf("write to a pipe session: %+v", out)
	}
	closed, _ := a.CloseSessions(ctx, CloseSessionsInput{ThreadID: "th"})
	if len(closed.Closed) != 1 || closed.Closed[0] != 1000 {
		t.Fatalf("closed %+v", closed)
	}
	if out, _ := a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", SessionID: 1000, YieldMs: 10}); !out.Unknown {
		t.Fatalf("after close: %+v", out)
	}
}

func TestTruncateTokensKeepsHeadAndTail(t *testing.T) {
	text := "HEAD" + strings.Repeat("x", 4000) + "TAIL"
	got, n := truncateTokens(text, 10)
	if n != 1002 || !strings.HasPrefix(got, "HEAD") || !strings.HasSuffix(got, "TAIL") || !strings.Contains(got, "tokens truncated") {
		t.Fatalf("%d %q", n, got)
	}
}

// A terminal session runs inside the workspace-write boundary as a
// one-shot command does: it writes in the workspace, not outside.
func TestTerminalSessionRunsInTheSandbox(t *testing.T) {
	a := newTestActivities(t)
	in := sessionCmd(t, `touch inside && echo made; touch /outside-`+t.Name()+` 2>/dev/null || echo refused; read l; echo "got:$l"`, true, 1000)
	in.Exec.SandboxMode, in.Exec.WorkspaceRoot = "workspace-write", in.Exec.Cwd
	out, err := a.ExecCommand(context.Background(), in)
	if err != nil || out.SandboxError != "" {
		t.Fatalf("%+v %v", out, err)
	}
	if !strings.Contains(out.Output, "made") || !strings.Contains(out.Output, "refused") || !out.Running {
		t.Fatalf("%+v", out)
	}
	out, _ = a.WriteStdin(context.Background(), WriteStdinInput{ThreadID: "th", SessionID: 1000, Chars: "x\n", YieldMs: 5000})
	if out.Running || !strings.Contains(out.Output, "got:x") {
		t.Fatalf("%+v", out)
	}
}

// A tty request on a host without pseudo-terminals is a command that did
// not start, saying why; nothing runs.
func TestTTYWithoutPseudoTerminals(t *testing.T) {
	a := newTestActivities(t)
	a.noPTY = true
	out, err := a.ExecCommand(context.Background(), sessionCmd(t, "touch ran", true, 1000))
	if err != nil || out.Running || !strings.Contains(out.StartError, "no pseudo-terminal") || !strings.Contains(out.StartError, "without tty") {
		t.Fatalf("%+v %v", out, err)
	}
}
