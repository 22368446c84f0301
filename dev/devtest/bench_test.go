package devtest

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BenchmarkTurn20EchoSteps measures a 20-step turn of `echo` commands
// against the fake model on the embedded server with a warm worker. It
// reports wall time per turn and per step, and the process's peak RSS.
//
//	go test ./dev/devtest/ -run '^$' -bench Turn20 -benchtime 10x
func BenchmarkTurn20EchoSteps(b *testing.B) {
	const steps = 20
	w := Start(b, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		// argv form: `bash -lc` would add the login shell's start-up
		// (~140 ms on this machine) to every step.
		{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(`{"command":["echo","step"]}`)}}, Repeat: steps},
		{Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "bench"})
	ctx := context.Background()
	cfg := w.Config("")
	// The default is `interpreter exec`'s (local within a budget);
	// BENCH_LOCAL_MODEL_CALLS=1 measures temporal.local_model_calls =
	// true, and 0 false (every call a regular activity).
	switch os.Getenv("BENCH_LOCAL_MODEL_CALLS") {
	case "1":
		cfg.LocalModelCalls = true
	case "0":
		cfg.ModelCalls = workflows.ModelCallsActivity
	}
	// Warm up: first workflow and activity tasks, connections, caches.
	w.RunTurn(ctx, cfg, "warm up")
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		_, res := w.RunTurn(ctx, cfg, "echo twenty times")
		if res.Status != "completed" || res.Steps != steps+1 {
			b.Fatalf("turn %s after %d steps: %s", res.Status, res.Steps, res.Error)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	perTurn := elapsed / time.Duration(b.N)
	b.ReportMetric(float64(perTurn.Milliseconds()), "ms/turn")
	b.ReportMetric(float64(perTurn.Microseconds())/1000/float64(steps), "ms/step")
	b.ReportMetric(float64(peakRSSKB())/1024, "peakRSS-MB")
}

// peakRSSKB reads VmHWM of this process (server, worker and fake model
// all live in it).
func peakRSSKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
	}
	return 0
}
