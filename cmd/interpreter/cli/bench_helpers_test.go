package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/dev/devtest"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// benchEcho is a model step that runs `echo arg` (argv, no login shell).
func benchEcho(arg string) fakemodel.Step {
	return fakemodel.Step{ToolCalls: []fakemodel.ToolCall{{Name: "shell", Arguments: json.RawMessage(fmt.Sprintf(`{"command":["echo",%q]}`, arg))}}}
}

// benchThreeSteps is the benchmarks' 3-step turn: two commands, then the
// answer.
func benchThreeSteps() fakemodel.Turn {
	return fakemodel.Turn{Steps: []fakemodel.Step{benchEcho("one"), benchEcho("two"), {Text: "done"}}}
}

// benchWorld starts the server and the fake model for a benchmark: state
// in memory, or in a file with BENCH_FILE_DB=1.
func benchWorld(b *testing.B, script *fakemodel.Script) *devtest.World {
	if os.Getenv("BENCH_FILE_DB") == "1" {
		return devtest.StartFile(b, script)
	}
	return devtest.Start(b, script)
}

// benchModelCalls is the local_model_calls line for BENCH_LOCAL_MODEL_CALLS:
// 1 always local, 0 always regular activities, unset the default (local
// within a budget, then handed off).
func benchModelCalls() string {
	switch os.Getenv("BENCH_LOCAL_MODEL_CALLS") {
	case "1":
		return "local_model_calls = true\n"
	case "0":
		return "local_model_calls = false\n"
	}
	return ""
}

// benchConfig writes a home whose config.toml points at w's fake model and
// task queues (top adds top-level keys) and loads it.
func benchConfig(b testing.TB, w *devtest.World, top string) (*Globals, *config.Config) {
	home := b.TempDir()
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
%s
[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"

[temporal]
task_queue = %q
host_queue = %q
%s`, top, w.Model.URL(), devtest.TaskQueue, devtest.TaskQueue+"-host-test", benchModelCalls())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	g := &Globals{Home: home}
	loaded, err := g.load(nil)
	if err != nil {
		b.Fatal(err)
	}
	return g, loaded
}

// durations are one measurement per iteration.
type durations []time.Duration

// report adds the mean (ms/name) and the median (ms/name-p50): on this
// shared machine a few slow iterations move the mean more than the
// median.
func (d durations) report(b *testing.B, name string) {
	if len(d) == 0 {
		return
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	b.ReportMetric(ms(sum)/float64(len(d)), "ms/"+name)
	b.ReportMetric(ms(sorted[len(sorted)/2]), "ms/"+name+"-p50")
}
