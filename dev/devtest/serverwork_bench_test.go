package devtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/metrics/metricstest"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BenchmarkServerWorkPerStep counts what the embedded server does (on an
// SQLite file, as `interpreter dev` runs it) for one tool step and for
// one continuation turn: workflow tasks, activity tasks and history
// events of the thread's and turns' histories, and persistence requests
// by operation (the server's own persistence_requests metric). A tool
// step is a 20-step turn minus a 1-step turn, divided by 19; a
// continuation is a one-step turn sent to a thread that has run one, and
// a quick one the same turn sent asking for its result (a quick turn,
// workflows/quickturn.go).
//
//	go test ./dev/devtest/ -run '^$' -bench ServerWorkPerStep -benchtime 3x -v
func BenchmarkServerWorkPerStep(b *testing.B) {
	capture := metricstest.NewCaptureHandler()
	w := StartFileWith(b, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "one step", Steps: []fakemodel.Step{{Text: "done"}}},
		{Steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(`{"command":["bash","-lc","echo step"]}`)}}, Repeat: 19}, {Text: "done"}}},
	}}, devserver.Options{Metrics: capture})
	w.StartWorker(WorkerOptions{Name: "bench"})
	ctx := context.Background()
	cfg := w.Config("")
	w.RunTurn(ctx, cfg, "warm up")
	// measure runs f and returns the server work it caused.
	measure := func(f func() []string) work {
		c := capture.StartCapture()
		ids := f()
		capture.StopCapture(c)
		wk := persistenceWork(c.Snapshot())
		for _, id := range ids {
			wk.add(historyWork(b, w, id))
		}
		return wk
	}
	var long, short, cont, quick work
	for i := 0; i < b.N; i++ {
		long.add(measure(func() []string {
			id, res := w.RunTurn(ctx, cfg, "twenty steps")
			return []string{id, res.TurnID}
		}))
		var thread string
		short.add(measure(func() []string {
			id, res := w.RunTurn(ctx, cfg, "one step")
			thread = id
			return []string{id, res.TurnID}
		}))
		awaitIdle(b, w, thread)
		reply := func(into *work, want bool) {
			into.add(measure(func() []string {
				before := historyWork(b, w, thread)
				resp, err := threads.Reply(ctx, w.Client, thread, workflows.StartTurnRequest{Prompt: "one step", WantResult: want})
				if err != nil {
					b.Fatal(err)
				}
				if want && resp.Result == nil {
					b.Fatal("a reply that asked for its result was not a quick turn")
				}
				if res := w.WaitTurn(ctx, thread, resp.TurnID); res.Status != workflows.StatusCompleted {
					b.Fatalf("continuation turn %s: %s", res.Status, res.Error)
				}
				awaitIdle(b, w, thread)
				// The thread's history before the reply is not this turn's.
				into.sub(before)
				return []string{thread, resp.TurnID}
			}))
		}
		reply(&cont, false)
		reply(&quick, true)
	}
	n := float64(b.N)
	step := long.minus(short).scale(1 / (19 * n))
	turn := cont.scale(1 / n)
	step.report(b, "step")
	turn.report(b, "cont")
	fast := quick.scale(1 / n)
	fast.report(b, "quick")
	b.Logf("per tool step: %s", step)
	b.Logf("per continuation turn: %s", turn)
	b.Logf("per quick continuation turn (a reply that asks for its result): %s", fast)
}

// awaitIdle waits until the thread has taken in its last turn (its
// history ends with a completed workflow task and nothing pending).
func awaitIdle(b *testing.B, w *World, thread string) {
	b.Helper()
	ctx := context.Background()
	for range 200 {
		d, err := w.Client.DescribeWorkflowExecution(ctx, thread, "")
		if err != nil {
			b.Fatal(err)
		}
		if d.GetPendingWorkflowTask() == nil && len(d.GetPendingChildren()) == 0 && len(d.GetPendingActivities()) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // polled: the thread's idleness sends no event to wait on
	}
	b.Fatalf("thread %s never went idle", thread)
}

// work is server work, counted.
type work struct {
	wft, act, markers, events float64
	persist                   map[string]float64 // by operation
	persistMs                 map[string]float64 // time in persistence, by operation
}

func (w *work) add(o work) {
	w.wft, w.act, w.markers, w.events = w.wft+o.wft, w.act+o.act, w.markers+o.markers, w.events+o.events
	if w.persist == nil {
		w.persist = map[string]float64{}
	}
	for k, v := range o.persist {
		w.persist[k] += v
	}
	if w.persistMs == nil {
		w.persistMs = map[string]float64{}
	}
	for k, v := range o.persistMs {
		w.persistMs[k] += v
	}
}

func (w *work) sub(o work) { w.add(o.scale(-1)) }

func (w work) minus(o work) work {
	var r work
	r.add(w)
	r.add(o.scale(-1))
	return r
}

func (w work) scale(f float64) work {
	r := work{wft: w.wft * f, act: w.act * f, markers: w.markers * f, events: w.events * f, persist: map[string]float64{}}
	for k, v := range w.persist {
		r.persist[k] = v * f
	}
	r.persistMs = map[string]float64{}
	for k, v := range w.persistMs {
		r.persistMs[k] = v * f
	}
	return r
}

func (w work) writes() float64 {
	var n float64
	for k, v := range w.persist {
		if isWrite(k) {
			n += v
		}
	}
	return n
}

func (w work) total() float64 {
	var n float64
	for _, v := range w.persist {
		n += v
	}
	return n
}

func (w work) report(b *testing.B, name string) {
	b.ReportMetric(w.wft, "wft/"+name)
	b.ReportMetric(w.act, "acttasks/"+name)
	b.ReportMetric(w.markers, "markers/"+name)
	b.ReportMetric(w.events, "events/"+name)
	b.ReportMetric(w.total(), "persist/"+name)
	b.ReportMetric(w.writes(), "persist-writes/"+name)
	var ms float64
	for _, v := range w.persistMs {
		ms += v
	}
	b.ReportMetric(ms, "persist-ms/"+name)
}

func (w work) String() string {
	var ops []string
	for k := range w.persist {
		ops = append(ops, k)
	}
	sort.Slice(ops, func(i, j int) bool { return w.persist[ops[i]] > w.persist[ops[j]] })
	var parts []string
	for _, k := range ops {
		if v := w.persist[k]; v > 0.05 || v < -0.05 {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, v))
		}
	}
	var ms float64
	var slow []string
	for k, v := range w.persistMs {
		ms += v
		if v > 0.5 || v < -0.5 {
			slow = append(slow, fmt.Sprintf("%s %.1f ms", k, v))
		}
	}
	sort.Strings(slow)
	return fmt.Sprintf("%.1f ms in persistence (%s); %.1f workflow tasks, %.1f activity tasks, %.1f markers (local activities, side effects), %.1f history events; persistence %.1f requests (%.1f writes): %s",
		ms, strings.Join(slow, ", "), w.wft, w.act, w.markers, w.events, w.total(), w.writes(), strings.Join(parts, ", "))
}

// isWrite tells a persistence operation that changes the database.
func isWrite(op string) bool {
	for _, p := range []string{"Get", "List", "Read", "Scan", "Count", "Describe", "Query", "Heartbeat"} {
		if strings.HasPrefix(op, p) {
			return false
		}
	}
	return true
}

// persistenceWork sums the persistence_requests counter by operation.
func persistenceWork(s metricstest.CaptureSnapshot) work {
	wk := work{persist: map[string]float64{}, persistMs: map[string]float64{}}
	for _, r := range s["persistence_latency"] {
		if d, ok := r.Value.(time.Duration); ok {
			wk.persistMs[r.Tags["operation"]] += float64(d.Microseconds()) / 1000
		}
	}
	for _, r := range s["persistence_requests"] {
		op := r.Tags["operation"]
		switch v := r.Value.(type) {
		case int64:
			wk.persist[op] += float64(v)
		case float64:
			wk.persist[op] += v
		}
	}
	return wk
}

// historyWork counts a workflow's tasks and events.
func historyWork(b *testing.B, w *World, id string) work {
	b.Helper()
	var wk work
	it := w.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		wk.events++
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			wk.wft++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			wk.act++
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			wk.markers++
		}
	}
	return wk
}
