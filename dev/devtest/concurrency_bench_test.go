package devtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BenchmarkConcurrentThreads starts BENCH_THREADS threads (default 10) at
// once, each with one 5-step turn (four `echo` commands, then the answer)
// against the fake model answering every call after 200 ms, on a
// file-backed embedded server with one worker, as `interpreter dev` runs.
// It reports throughput (turns/s), how long `turn/start` took to answer
// (threads.Start), the time from the start request to the turn's first
// workflow task (p50/p95; the turn's first event comes with it), the
// workflow tasks that timed out waiting for a worker (schedule-to-start)
// or failed with UNHANDLED_COMMAND, and model requests beyond one per step
// (calls made twice). dev/devtest/concurrency.sh runs N = 10/50/100/200.
// BENCH_MODEL_MS sets the model's latency (a fast model: 0-20),
// BENCH_SQLITE_SYNC sets the server's SQLite synchronous pragma,
// BENCH_FOLLOW=1 follows each turn as the front ends do, and
// BENCH_TEMPORAL_ADDRESS runs against a server of its own (the Temporal
// CLI's dev server, a cluster) instead of the embedded one. With -v each
// failed or timed-out workflow task is logged with the events around it,
// and each repeated model request with the one it repeats.
//
//	BENCH_THREADS=50 go test ./dev/devtest/ -run '^$' -bench ConcurrentThreads -benchtime 1x
func BenchmarkConcurrentThreads(b *testing.B) {
	n := 10
	if s := os.Getenv("BENCH_THREADS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("BENCH_THREADS=%q", s)
		}
	}
	delay := 200
	if s := os.Getenv("BENCH_MODEL_MS"); s != "" {
		var err error
		if delay, err = strconv.Atoi(s); err != nil || delay < 0 {
			b.Fatalf("BENCH_MODEL_MS=%q", s)
		}
	}
	const steps = 5
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(`{"command":["echo","step"]}`)}}, Repeat: steps - 1, DelayMs: delay},
		{Text: "done", DelayMs: delay},
	}}}}
	var w *World
	if addr := os.Getenv("BENCH_TEMPORAL_ADDRESS"); addr != "" {
		w = StartAt(b, addr, script)
	} else {
		// BENCH_SQLITE_SYNC=normal: the server's SQLite without an fsync
		// per commit (devserver.Options.Synchronous).
		w = StartFileWith(b, script, devserver.Options{Synchronous: os.Getenv("BENCH_SQLITE_SYNC")})
	}
	w.StartWorker(WorkerOptions{Name: "bench"})
	runConcurrent(b, w, 1, fmt.Sprintf("warm-up-%d", time.Now().UnixNano())) // a warm worker, as a running one is
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := len(w.Model.Server.Requests())
		r := runConcurrent(b, w, n, fmt.Sprintf("conc-%d-%d", i, time.Now().UnixNano()))
		reqs := w.Model.Server.Requests()[before:]
		extra := len(reqs) - n*steps
		if testing.Verbose() && extra != 0 {
			logRepeatedCalls(b, reqs)
		}
		b.ReportMetric(float64(n)/r.wall.Seconds(), "turns/s")
		b.ReportMetric(ms(pct(r.startAnswered, 50)), "start-p50-ms")
		b.ReportMetric(ms(pct(r.startAnswered, 95)), "start-p95-ms")
		b.ReportMetric(ms(pct(r.firstTask, 50)), "first-p50-ms")
		b.ReportMetric(ms(pct(r.firstTask, 95)), "first-p95-ms")
		b.ReportMetric(float64(r.s2sTimeouts), "wft-s2s-timeouts")
		b.ReportMetric(float64(r.unhandled), "unhandled-cmd")
		b.ReportMetric(float64(r.failedTasks), "wft-failed")
		b.ReportMetric(float64(extra), "extra-model-calls")
		if r.notCompleted > 0 {
			b.Errorf("%d of %d turns did not complete", r.notCompleted, n)
		}
	}
}

type concurrentRun struct {
	wall                                time.Duration
	startAnswered, firstTask            []time.Duration
	s2sTimeouts, unhandled, failedTasks int
	notCompleted                        int
}

func runConcurrent(b *testing.B, w *World, n int, prefix string) concurrentRun {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var r concurrentRun
	type started struct {
		thread, turn string
		at           time.Time
	}
	var all []started
	follow := os.Getenv("BENCH_FOLLOW") == "1"
	var wg sync.WaitGroup
	begin := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("%s-%d", prefix, i)
			at := time.Now()
			resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
				workflows.StartTurnRequest{Prompt: "thread " + id})
			if err != nil {
				b.Error(err)
				return
			}
			answered := time.Since(at)
			if follow {
				// As the front ends follow a turn: its events as they come.
				if _, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(workflows.Event) {}); err != nil {
					b.Error(err)
				}
			}
			res, err := threads.Outcome(ctx, w.Client, resp.TurnID)
			mu.Lock()
			defer mu.Unlock()
			r.startAnswered = append(r.startAnswered, answered)
			all = append(all, started{id, resp.TurnID, at})
			if err != nil || res.Status != workflows.StatusCompleted {
				r.notCompleted++
			}
		}()
	}
	wg.Wait()
	r.wall = time.Since(begin)
	for _, s := range all {
		for _, id := range []string{s.thread, s.turn} {
			first := true
			var events []*historypb.HistoryEvent
			it := w.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					b.Fatal(err)
				}
				events = append(events, e)
				switch e.GetEventType() {
				case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
					if id == s.turn && first {
						first = false
						r.firstTask = append(r.firstTask, e.GetEventTime().AsTime().Sub(s.at))
					}
				case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
					if e.GetWorkflowTaskTimedOutEventAttributes().GetTimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START {
						r.s2sTimeouts++
					}
				case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
					r.failedTasks++
					cause := e.GetWorkflowTaskFailedEventAttributes().GetCause()
					if cause == enumspb.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND {
						r.unhandled++
					}
				}
			}
			if testing.Verbose() {
				logFailedTasks(b, id, events)
			}
		}
	}
	return r
}

// logRepeatedCalls logs the model requests whose body was asked before:
// the same step of the same turn made twice.
func logRepeatedCalls(b *testing.B, reqs []fakemodel.Recorded) {
	seen := map[string]int{}
	for _, r := range reqs {
		k := string(r.Body)
		if first, ok := seen[k]; ok {
			b.Logf("model request %d repeats request %d (step %d): %.120s", r.Seq, first, r.Step, k)
			continue
		}
		seen[k] = r.Seq
	}
}

// logFailedTasks logs each failed or timed-out workflow task of a run with
// the events around it: what the task was doing, and what arrived then.
func logFailedTasks(b *testing.B, id string, events []*historypb.HistoryEvent) {
	for i, e := range events {
		var what string
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			a := e.GetWorkflowTaskFailedEventAttributes()
			what = fmt.Sprintf("failed: %s %s", a.GetCause(), a.GetFailure().GetMessage())
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
			what = "timed out: " + e.GetWorkflowTaskTimedOutEventAttributes().GetTimeoutType().String()
		default:
			continue
		}
		var around []string
		for _, x := range events[max(0, i-8):min(len(events), i+6)] {
			around = append(around, fmt.Sprintf("%d %s %s", x.GetEventId(), x.GetEventTime().AsTime().Format("15:04:05.000"),
				strings.TrimPrefix(x.GetEventType().String(), "EVENT_TYPE_")))
		}
		b.Logf("%s: event %d: workflow task %s\n\t%s", id, e.GetEventId(), what, strings.Join(around, "\n\t"))
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
