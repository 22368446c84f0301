package activities

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

func localInput(key string, argv ...string) LocalExecInput {
	return LocalExecInput{Exec: ExecInput{ThreadID: "th", CallID: key, Command: argv},
		HostQueue: "host-a", Key: key, Budget: 5 * time.Second}
}

func TestExecHereRunsAQuickCommandOnce(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue = "host-a"
	ctx := context.Background()
	out, err := a.ExecHere(ctx, localInput("item_1/c1", "echo", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Output == nil || out.Output.ExitCode != 0 || !strings.Contains(out.Output.Output, "hello") {
		t.Fatalf("first attempt: %+v", out)
	}
	// A repeated attempt (its workflow task failed before the outcome
	// reached history) must not run the command again.
	again, err := a.ExecHere(ctx, localInput("item_1/c1", "echo", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !again.StartedBefore || again.Output != nil {
		t.Fatalf("repeated attempt ran the command again: %+v", again)
	}
	// So must a regular activity that takes over on the host.
	if _, err := a.Exec(ctx, ExecInput{CallID: "c1", Command: []string{"echo", "hello"}, Record: "item_1/c1"}); !isAppErr(err, ErrTypeCommandStartedBefore) {
		t.Fatalf("regular attempt after the local one: %v", err)
	}
	// Once forgotten (its outcome is in history), the key is free.
	in := localInput("item_2/c2", "true")
	in.Forget = []string{"item_1/c1"}
	if _, err := a.ExecHere(ctx, in); err != nil {
		t.Fatal(err)
	}
	if a.started().has("", "item_1/c1") || !a.started().has("", "item_2/c2") {
		t.Fatal("forget removed the wrong records")
	}
	if err := a.ForgetCommands(ctx, ForgetCommandsInput{HostQueue: "host-a", Keys: []string{"item_2/c2"}}); err != nil {
		t.Fatal(err)
	}
	if a.started().has("", "item_2/c2") {
		t.Fatal("ForgetCommands left the record")
	}
}

func TestExecHereLeavesAnotherHostsCommandAlone(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue = "host-b"
	out, err := a.ExecHere(context.Background(), localInput("item_1/c1", "touch", t.TempDir()+"/ran"))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Elsewhere || out.Output != nil || a.started().has("", "item_1/c1") {
		t.Fatalf("a worker of another host ran it or recorded it: %+v", out)
	}
}

func TestExecHereHandsOffASlowCommand(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue, a.SessionQueue = "host-a", "host-a-sessions-1"
	in := localInput("item_1/c1", "bash", "-c", "sleep 0.3; echo late")
	in.Budget = 20 * time.Millisecond
	out, err := a.ExecHere(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Handoff == "" || out.HandoffQueue != "host-a-sessions-1" || out.Output != nil {
		t.Fatalf("not handed off: %+v", out)
	}
	res, err := a.Exec(context.Background(), ExecInput{CallID: "c1", Resume: out.Handoff})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(res.Output, "late") {
		t.Fatalf("taken-over command: %+v", res)
	}
	// A handoff no longer held (the worker restarted) is lost, not rerun.
	if _, err := a.Exec(context.Background(), ExecInput{CallID: "c1", Resume: out.Handoff}); !isAppErr(err, ErrTypeCommandLost) {
		t.Fatalf("second take-over: %v", err)
	}
}

func isAppErr(err error, typ string) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == typ
}

// An attempt that finds the record of a command still running in this
// process (an earlier attempt's workflow task failed while the command
// ran, or after it was handed off) ends that command before it reports
// the command interrupted: an interrupted command's processes are gone.
func TestExecHereStartedBeforeEndsTheEarlierRun(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue, a.SessionQueue = "host-a", "host-a-sessions-1"
	ctx := context.Background()

	// Still in its local activity.
	first := make(chan *LocalExecOutput, 1)
	go func() {
		out, err := a.ExecHere(ctx, localInput("item_1/c1", "sleep", "30"))
		if err != nil {
			t.Error(err)
		}
		first <- out
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !a.localRuns().running("", "item_1/c1") {
		if time.Now().After(deadline) {
			t.Fatal("the first attempt's command did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	again, err := a.ExecHere(ctx, localInput("item_1/c1", "sleep", "30"))
	if err != nil || !again.StartedBefore {
		t.Fatalf("repeated attempt: %+v %v", again, err)
	}
	select {
	case out := <-first:
		if out == nil || !out.Canceled {
			t.Fatalf("the first attempt's command was not stopped: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first attempt's command still runs")
	}

	// Handed off, and not taken over yet.
	in := localInput("item_2/c2", "sleep", "30")
	in.Budget = 20 * time.Millisecond
	out, err := a.ExecHere(ctx, in)
	if err != nil || out.Handoff == "" {
		t.Fatalf("not handed off: %+v %v", out, err)
	}
	if again, err := a.ExecHere(ctx, in); err != nil || !again.StartedBefore {
		t.Fatalf("repeated attempt: %+v %v", again, err)
	}
	c := a.handedOff().take(out.Handoff)
	if c == nil {
		t.Fatal("the handed-off command is gone from the registry")
	}
	defer c.release()
	select {
	case <-c.proc.Done():
	default:
		t.Fatal("the handed-off command still runs after the attempt that found its record returned")
	}
}

// A stop that reaches a handed-off command before an activity took it
// over (StopCommand of an interrupted turn) kills it.
func TestStoppedHandedOffCommandIsKilled(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue, a.SessionQueue = "host-a", "host-a-sessions-1"
	in := localInput("item_1/c1", "sleep", "30")
	in.Budget = 20 * time.Millisecond
	out, err := a.ExecHere(context.Background(), in)
	if err != nil || out.Handoff == "" {
		t.Fatalf("not handed off: %+v %v", out, err)
	}
	c := a.handedOff().take(out.Handoff)
	defer c.release()
	c.stop(errStopped)
	select {
	case <-c.proc.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the stopped command still runs")
	}
}

// The regular activity that takes a handed-off command over heartbeats
// what the command printed in its local window at once, not after its
// first tick: a follower sees that output as soon as the activity runs.
func TestTakenOverCommandHeartbeatsItsOutputAtOnce(t *testing.T) {
	a := newTestActivities(t)
	a.HostQueue, a.SessionQueue = "host-a", "host-a-sessions-1"
	// No tick comes before the command ends: only the take-over's own
	// first heartbeat can carry the output.
	a.HeartbeatEvery, a.liveEvery = time.Hour, time.Hour
	dir := t.TempDir()
	in := localInput("item_1/c1", "bash", "-c", "echo early; while [ ! -e "+dir+"/go ]; do sleep 0.01; done")
	in.Budget = 50 * time.Millisecond
	out, err := a.ExecHere(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Handoff == "" {
		t.Fatalf("not handed off: %+v", out)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a.Exec)
	beats := make(chan ExecProgress, 16)
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		var p ExecProgress
		if err := d.Get(&p); err != nil {
			t.Error(err)
		}
		beats <- p
	})
	done := make(chan error, 1)
	go func() {
		_, err := env.ExecuteActivity(a.Exec, ExecInput{CallID: "c1", Resume: out.Handoff})
		done <- err
	}()
	select {
	case p := <-beats:
		if !strings.Contains(string(p.Tail), "early") || p.Total != int64(len("early\n")) {
			t.Errorf("first heartbeat %+v (tail %q), want the window's output", p, p.Tail)
		}
	case err := <-done:
		t.Fatalf("the take-over ended (%v) before any heartbeat", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no heartbeat from the take-over")
	}
	if err := os.WriteFile(dir+"/go", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
