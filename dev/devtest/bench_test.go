package devtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
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
	benchTurn20(b, Start, `["echo","step"]`, WorkerOptions{Name: "bench"})
}

// BenchmarkTurn20Shell is the same turn on a file-backed server (as
// `interpreter dev` keeps its state) with the commands asked for as
// models ask for them, `["bash","-lc","echo step"]`, beside the argv
// form; nosnapshot reads the login profile on every command
// ([features] shell_snapshot = false). login-shell-alone is what
// `bash -lc true` and `bash -c true` cost on this machine, without us.
//
//	go test ./dev/devtest/ -run '^$' -bench Turn20Shell -benchtime 5x
func BenchmarkTurn20Shell(b *testing.B) {
	b.Run("argv", func(b *testing.B) {
		benchTurn20(b, StartFile, `["echo","step"]`, WorkerOptions{Name: "bench"})
	})
	b.Run("bash-lc", func(b *testing.B) {
		benchTurn20(b, StartFile, `["bash","-lc","echo step"]`, WorkerOptions{Name: "bench"})
	})
	// Codex's own tool for the gpt-5 models (exec_command, a login
	// shell by default), as the codex harness offers it.
	b.Run("exec-command", func(b *testing.B) {
		call := fakemodel.ToolCall{Name: "exec_command", Arguments: json.RawMessage(`{"cmd":"echo step"}`)}
		benchTurn20Call(b, StartFile, call, WorkerOptions{Name: "bench"})
	})
	b.Run("bash-lc-nosnapshot", func(b *testing.B) {
		benchTurn20(b, StartFile, `["bash","-lc","echo step"]`, WorkerOptions{Name: "bench", NoShellSnapshot: true})
	})
	// As users run it by default: each command inside the sandbox, through
	// the helper the binary re-executes (see sandbox/early).
	b.Run("bash-lc-workspace-write", func(b *testing.B) {
		benchTurn20(b, StartFile, `["bash","-lc","echo step"]`, WorkerOptions{Name: "bench"}, "workspace-write")
	})
	for _, argv := range [][]string{{"bash", "-lc", "true"}, {"bash", "-c", "true"}} {
		b.Run("login-shell-alone/"+strings.Join(argv[:2], ""), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/run")
		})
	}
}

// benchTurn20 runs 20-step turns of command; sandbox is the thread's
// sandbox mode (default danger-full-access).
func benchTurn20(b *testing.B, start func(testing.TB, *fakemodel.Script) *World, command string, wo WorkerOptions, sandbox ...string) {
	call := fakemodel.ToolCall{Name: "shell", Arguments: json.RawMessage(`{"command":` + command + `}`)}
	benchTurn20Call(b, start, call, wo, sandbox...)
}

// benchTurn20Call runs 20-step turns of one tool call.
func benchTurn20Call(b *testing.B, start func(testing.TB, *fakemodel.Script) *World, call fakemodel.ToolCall, wo WorkerOptions, sandbox ...string) {
	const steps = 20
	w := start(b, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{call}, Repeat: steps},
		{Text: "done"},
	}}}})
	w.StartWorker(wo)
	ctx := context.Background()
	cfg := w.Config("")
	if len(sandbox) > 0 {
		cfg.SandboxMode = sandbox[0]
	}
	// The default is `interpreter exec`'s (local within a budget);
	// BENCH_LOCAL_MODEL_CALLS=1 measures temporal.local_model_calls =
	// true, and 0 false (every call a regular activity).
	switch os.Getenv("BENCH_LOCAL_MODEL_CALLS") {
	case "1":
		cfg.LocalModelCalls = true
	case "0":
		cfg.ModelCalls = workflows.ModelCallsActivity
	}
	// The default runs commands locally first (as `interpreter` does);
	// BENCH_LOCAL_COMMANDS=0 measures temporal.local_commands = false.
	if os.Getenv("BENCH_LOCAL_COMMANDS") == "0" {
		cfg.Commands = workflows.CommandsActivity
	}
	// Warm up: first workflow and activity tasks, connections, caches
	// (and the shell snapshot, taken on the first login shell).
	w.RunTurn(ctx, cfg, "warm up")
	b.ResetTimer()
	begin := time.Now()
	for i := 0; i < b.N; i++ {
		_, res := w.RunTurn(ctx, cfg, "echo twenty times")
		if res.Status != "completed" || res.Steps != steps+1 {
			b.Fatalf("turn %s after %d steps: %s", res.Status, res.Steps, res.Error)
		}
	}
	elapsed := time.Since(begin)
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
