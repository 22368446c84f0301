package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
local_model_calls = %t
`, top, w.Model.URL(), devtest.TaskQueue, devtest.TaskQueue+"-host-test", os.Getenv("BENCH_LOCAL_MODEL_CALLS") == "1")
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
