package activities

import (
	"context"
	"os"
	"testing"
	"time"
)

func localSession(t *testing.T, script string, yieldMs int64, budget time.Duration) LocalExecCommandInput {
	return LocalExecCommandInput{Session: sessionCmd(t, script, false, yieldMs), HostQueue: "host-a",
		Key: "item_1/" + t.Name(), Budget: budget}
}

func newLocalSessionActivities(t *testing.T) *Activities {
	a := newTestActivities(t)
	a.HostQueue, a.SessionQueue = "host-a", "host-a-sessions-1"
	t.Cleanup(a.CloseAllSessions)
	return a
}

func TestExecCommandHereAnswersAQuickCommandOnce(t *testing.T) {
	a := newLocalSessionActivities(t)
	ctx := context.Background()
	in := localSession(t, "echo hi; exit 3", 10000, 5*time.Second)
	out, err := a.ExecCommandHere(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if o := out.Output; o == nil || o.Running || o.ExitCode != 3 || o.Output != "hi\n" || o.ChunkID == "" || out.HandoffQueue != "" {
		t.Fatalf("quick command: %+v %+v", out, out.Output)
	}
	// A repeated attempt (its workflow task failed) must not run it again.
	again, err := a.ExecCommandHere(ctx, in)
	if err != nil || !again.StartedBefore || again.Output != nil {
		t.Fatalf("repeated attempt: %+v %v", again, err)
	}
	// Nor a regular activity that takes the call over on the host (the
	// retried task ran on a worker of another host).
	regular := in.Session
	regular.Exec.Record = in.Key
	if _, err := a.ExecCommand(ctx, regular); !isAppErr(err, ErrTypeCommandStartedBefore) {
		t.Fatalf("regular attempt after the local one: %v", err)
	}
}

func TestExecCommandHereLeavesAnotherHostsCommandAlone(t *testing.T) {
	a := newLocalSessionActivities(t)
	a.HostQueue = "host-b"
	ran := t.TempDir() + "/ran"
	out, err := a.ExecCommandHere(context.Background(), localSession(t, "touch "+ran, 10000, time.Second))
	if err != nil || !out.Elsewhere || out.Output != nil || exists(ran) {
		t.Fatalf("a worker of another host ran it: %+v %v", out, err)
	}
}

// A command still running after the budget, with more yield to go, is
// handed off: the hand-off answers with everything it printed since the
// start, and only once.
func TestExecCommandHereHandsOffTheRestOfTheYield(t *testing.T) {
	a := newLocalSessionActivities(t)
	ctx := context.Background()
	in := localSession(t, "echo early; sleep 0.3; echo late", 10000, 20*time.Millisecond)
	out, err := a.ExecCommandHere(ctx, in)
	if err != nil || out.HandoffQueue != "host-a-sessions-1" || out.Output != nil {
		t.Fatalf("not handed off: %+v %v", out, err)
	}
	rin := ResumeExecCommandInput{ThreadID: "th", CallID: in.Session.Exec.CallID, SessionID: 1000,
		YieldMs: 10000 - out.ElapsedMs, ElapsedMs: out.ElapsedMs, MaxTokens: 1000}
	res, err := a.ResumeExecCommand(ctx, rin)
	if err != nil || res.Running || res.ExitCode != 0 || res.Output != "early\nlate\n" || res.WallMs < 300 {
		t.Fatalf("hand-off: %+v %v", res, err)
	}
	if _, err := a.ResumeExecCommand(ctx, rin); !isAppErr(err, ErrTypeCommandLost) {
		t.Fatalf("second hand-off: %v", err)
	}
}

// A yield no longer than the budget ends inside the local activity: the
// session is answered as running, held by this process for write_stdin.
func TestExecCommandHereAnswersARunningSession(t *testing.T) {
	a := newLocalSessionActivities(t)
	ctx := context.Background()
	out, err := a.ExecCommandHere(ctx, localSession(t, "echo up; sleep 30", 250, time.Second))
	if err != nil || out.Output == nil || !out.Output.Running || out.Output.Queue != "host-a-sessions-1" || out.Output.Output != "up\n" {
		t.Fatalf("running session: %+v %v", out, err)
	}
	poll, err := a.WriteStdin(ctx, WriteStdinInput{ThreadID: "th", CallID: "w1", SessionID: 1000, YieldMs: 10})
	if err != nil || !poll.Running || poll.Unknown {
		t.Fatalf("poll: %+v %v", poll, err)
	}
}

// An attempt that finds the record of a session handed off by an earlier
// one ends that session: an interrupted command's processes are gone.
func TestExecCommandHereStartedBeforeEndsAHandedOffSession(t *testing.T) {
	a := newLocalSessionActivities(t)
	ctx := context.Background()
	in := localSession(t, "sleep 30", 10000, 20*time.Millisecond)
	out, err := a.ExecCommandHere(ctx, in)
	if err != nil || out.HandoffQueue == "" {
		t.Fatalf("not handed off: %+v %v", out, err)
	}
	s := a.execSessions().get("th", 1000)
	if s == nil {
		t.Fatal("the handed-off session is not held")
	}
	again, err := a.ExecCommandHere(ctx, in)
	if err != nil || !again.StartedBefore {
		t.Fatalf("repeated attempt: %+v %v", again, err)
	}
	select {
	case <-s.finished:
	default:
		t.Fatal("the handed-off session still runs after the attempt that found its record returned")
	}
	if a.execSessions().get("th", 1000) != nil {
		t.Fatal("the ended session is still listed")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
