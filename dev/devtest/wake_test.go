package devtest

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A follower that stopped asking about a command quiet for a while sees
// the command's first line soon after it is printed: the command's worker
// wakes the follower through the turn's history (a signal the turn
// ignores), and the follower looks at the live output again. The line is
// a wall-clock stamp in nanoseconds, so the test logs how late it came.
func TestAQuietCommandWakesItsFollower(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "sleep 26; date +%s%N; sleep 4"}, {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "wake"})
	var rpcs rpcCounter
	fc := dialCounting(w, &rpcs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: "wake", TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	s := threads.NewStream(fc, resp.TurnID, 0, threads.StreamOptions{Live: true, Begun: true})
	// When the stream first parked, and how many live polls it had made.
	var parkedAt, pollsAtPark atomic.Int64
	go func() {
		for ctx.Err() == nil && parkedAt.Load() == 0 {
			if s.Parked() {
				pollsAtPark.Store(int64(rpcs.snapshot()["DescribeWorkflowExecution"]))
				parkedAt.Store(time.Now().UnixNano())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var printed, seen time.Time
	var pollsAtSeen, quietAtSeen int
	var res *workflows.TurnResult
	for u := range s.Updates(ctx) {
		switch u.Kind {
		case threads.UpdateOutput:
			for _, line := range strings.Fields(u.Text) {
				if ns, err := strconv.ParseInt(line, 10, 64); err == nil && printed.IsZero() {
					printed, seen = time.Unix(0, ns), time.Now()
					pollsAtSeen = rpcs.snapshot()["DescribeWorkflowExecution"]
					quietAtSeen = s.Quiet()
				}
			}
		case threads.UpdateEnd:
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			res = u.Result
		}
	}
	if res == nil || res.Status != workflows.StatusCompleted {
		t.Fatalf("turn ended %+v", res)
	}
	if printed.IsZero() {
		t.Fatal("the command's line never came live")
	}
	if parkedAt.Load() == 0 || time.Unix(0, parkedAt.Load()).After(printed) {
		t.Fatalf("the follower never stopped polling the quiet command before it printed (parked at %d; %d quiet ticks when the line came; calls %v)",
			parkedAt.Load(), quietAtSeen, rpcs.snapshot())
	}
	late := seen.Sub(printed)
	t.Logf("parked %v before the print after %d live polls; the line came %v after it was printed, %d polls later",
		printed.Sub(time.Unix(0, parkedAt.Load())).Round(time.Millisecond), pollsAtPark.Load(), late.Round(time.Millisecond),
		pollsAtSeen-int(pollsAtPark.Load()))
	if late > 3*time.Second {
		t.Errorf("the line came %v after it was printed, want within a few hundred ms", late)
	}
}
