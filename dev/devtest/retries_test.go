package devtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// closedAddr is a local address nothing listens on: connections to it
// are refused.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// A provider that refuses connections: with the default retry keys the
// turn makes five attempts, shows four model.retry events while it
// waits, and fails well under a minute. Its TurnWorkflow is FAILED with
// the error on its close event, the thread runs on, and once the provider
// answers the next turn completes.
func TestRefusedProviderFailsTheTurnWithRetries(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "back"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	addr := closedAddr(t)
	cfg := w.Config("")
	cfg.Provider.BaseURL = "http://" + addr + "/v1"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	start := time.Now()
	threadID := "refused-" + time.Now().Format("150405.000000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: threadID, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var retries []workflows.Event
	var seen []time.Duration
	res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Type == workflows.EventModelRetry {
			retries = append(retries, e)
			seen = append(seen, time.Since(start))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if res == nil {
		r, err := threads.Outcome(ctx, w.Client, resp.TurnID)
		if err != nil {
			t.Fatal(err)
		}
		res = &r
	}
	t.Logf("failed after %s; retries seen at %v", took.Round(time.Millisecond), seen)
	if res.Status != workflows.StatusFailed || !strings.Contains(res.Error, "connection refused") || !strings.Contains(res.Error, "gave up after 5 attempts") {
		t.Fatalf("turn %s: %q", res.Status, res.Error)
	}
	if took > 30*time.Second {
		t.Fatalf("the turn took %s to fail", took)
	}
	if len(retries) != 4 {
		t.Fatalf("%d retry events, want 4: %v", len(retries), retries)
	}
	for i, e := range retries {
		want := workflows.ModelRetry{Attempt: i + 2, MaxAttempts: 5, DelayMs: int64(1000 << i), Kind: workflows.RetryRequest}
		if *e.Retry != want || !strings.Contains(e.Error, "connection refused") {
			t.Fatalf("retry %d: %+v %q, want %+v", i, *e.Retry, e.Error, want)
		}
	}
	// Shown while it happens: the first retry at once (no wait holds it
	// for a first answer), long before the end.
	if seen[0] > 2*time.Second || took-seen[0] < 10*time.Second {
		t.Fatalf("first retry seen at %s, the end at %s", seen[0], took)
	}

	// A follower is answered with the turn's end a workflow task before
	// its run closes: wait for the close.
	_ = w.Client.GetWorkflow(ctx, resp.TurnID, "").Get(ctx, nil)
	d, err := w.Client.DescribeWorkflowExecution(ctx, resp.TurnID, "")
	if err != nil {
		t.Fatal(err)
	}
	if st := d.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
		t.Fatalf("turn workflow %s, want FAILED", st)
	}
	it := w.Client.GetWorkflowHistory(ctx, resp.TurnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	ev, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	f := ev.GetWorkflowExecutionFailedEventAttributes().GetFailure()
	if f.GetMessage() != res.Error || f.GetApplicationFailureInfo().GetType() != workflows.ErrTypeTurnFailed {
		t.Fatalf("close event failure %q (%s), want %q", f.GetMessage(), f.GetApplicationFailureInfo().GetType(), res.Error)
	}
	if open, err := threads.Open(ctx, w.Client, threadID); err != nil || !open {
		t.Fatalf("thread open %v (%v)", open, err)
	}
	v, err := threads.Read(ctx, w.Client, threadID)
	if err != nil || len(v.Turns) != 1 || v.Turns[0].Status != workflows.StatusFailed {
		t.Fatalf("thread view %+v (%v)", v.Turns, err)
	}

	// The provider comes back on the same address.
	back := serveProxy(t, addr, w.Model.BaseURL())
	defer back()
	next, err := threads.Reply(ctx, w.Client, threadID, workflows.StartTurnRequest{Prompt: "again"})
	if err != nil {
		t.Fatal(err)
	}
	r2 := w.WaitTurn(ctx, threadID, next.TurnID)
	if r2.Status != workflows.StatusCompleted || r2.FinalMessage != "back" {
		t.Fatalf("next turn %s %q: %s", r2.Status, r2.FinalMessage, r2.Error)
	}
}

// serveProxy forwards addr to target until the returned stop.
func serveProxy(t *testing.T, addr, target string) (stop func()) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(u)}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }
}
