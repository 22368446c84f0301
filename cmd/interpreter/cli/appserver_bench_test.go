package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devtest"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// BenchmarkAppServer measures, over the app-server protocol, thread/start
// and a turn of 3 fake-model steps (two commands, then the answer) from
// turn/start to turn/completed, then a one-step continuation turn on the
// same thread (turn/start to turn/completed, ms/next-turn), against the
// embedded server with a warm worker (server, worker, fake model and
// app-server in one process).
//
//	go test ./cmd/interpreter/cli/ -run '^$' -bench AppServer -benchtime 20x
//
// BENCH_FILE_DB=1 keeps the server's state in an SQLite file;
// BENCH_LOCAL_MODEL_CALLS=1 runs every model call as a local activity, 0
// as a regular activity (unset: the default, local within a budget, then handed off).
func BenchmarkAppServer(b *testing.B) {
	w := benchWorld(b, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "reply", Steps: []fakemodel.Step{{Text: "replied"}}},
		benchThreeSteps(),
	}})
	w.StartWorker(devtest.WorkerOptions{Name: "bench"})
	c := benchAppClient(b, w)
	c.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	c.send(map[string]any{"method": "initialized"})
	var first time.Duration // turn/start sent to the first item/started
	var next durations
	turn := func() (time.Duration, time.Duration) {
		t0 := time.Now()
		th := c.call("thread/start", map[string]any{"cwd": w.Dir, "approvalPolicy": "never", "sandbox": "danger-full-access"})
		t1 := time.Now()
		id := th["thread"].(map[string]any)["id"].(string)
		c.firstItem, c.sent = time.Time{}, time.Now()
		c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "three steps"}}})
		c.until("turn/completed")
		first += c.firstItem.Sub(c.sent)
		t2 := time.Now()
		c.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "reply"}}})
		c.until("turn/completed")
		next = append(next, time.Since(t2))
		return t1.Sub(t0), t2.Sub(t1)
	}
	turn() // warm up: first workflow and activity tasks, connections, caches
	first, next = 0, nil

	var start, run time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, r := turn()
		start, run = start+s, run+r
	}
	b.StopTimer()
	b.ReportMetric(float64(start.Microseconds())/1000/float64(b.N), "ms/thread-start")
	b.ReportMetric(float64(run.Microseconds())/1000/float64(b.N), "ms/turn")
	b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ms/first-item")
	next.report(b, "next-turn")
}

type benchApp struct {
	b     *testing.B
	in    io.Writer
	lines *bufio.Scanner
	n     int
	// sent is when turn/start went out; firstItem when the first
	// item/started after it came.
	sent, firstItem time.Time
}

func (c *benchApp) send(v any) {
	line, _ := json.Marshal(v)
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.b.Fatal(err)
	}
}

func (c *benchApp) read() map[string]any {
	if !c.lines.Scan() {
		c.b.Fatalf("app-server closed: %v", c.lines.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(c.lines.Bytes(), &m); err != nil {
		c.b.Fatal(err)
	}
	if m["method"] == "item/started" && c.firstItem.IsZero() && !c.sent.IsZero() {
		c.firstItem = time.Now()
	}
	return m
}

// call sends a request and reads until its response.
func (c *benchApp) call(method string, params any) map[string]any {
	c.n++
	c.send(map[string]any{"id": c.n, "method": method, "params": params})
	for {
		m := c.read()
		if _, isNote := m["method"]; isNote {
			continue
		}
		if m["error"] != nil {
			c.b.Fatalf("%s: %v", method, m["error"])
		}
		return m["result"].(map[string]any)
	}
}

func (c *benchApp) until(method string) {
	for c.read()["method"] != method {
	}
}

// benchAppClient serves the app-server over w and returns a client of it.
func benchAppClient(b *testing.B, w *devtest.World) *benchApp {
	g, loaded := benchConfig(b, w, "")
	be := &appserver.TemporalBackend{Client: w.Client, TaskQueue: loaded.Temporal.TaskQueue, Namespace: loaded.Temporal.Namespace,
		SearchAttributes: true, Settings: &appSettings{b: &backend{client: w.Client}, g: g, cfg: loaded}, Terminals: sandbox.Terminals{}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = appserver.New(be, appserver.Options{Version: "bench", Home: g.Home, Cwd: w.Dir}).Serve(ctx, inR, outW)
		outW.Close()
	}()
	b.Cleanup(func() { cancel(); inW.Close() })
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &benchApp{b: b, in: inW, lines: sc}
}
