package devtest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BenchmarkSubAgentFanOut measures one parent turn that spawns n
// sub-agents in one answer, waits for each, and answers, on the embedded
// server (SQLite file, as `interpreter dev` keeps it) with two workers;
// each sub-agent's turn is one fake-model answer. It reports wall time per
// parent turn and per sub-agent.
//
//	go test ./dev/devtest/ -run '^$' -bench SubAgentFanOut -benchtime 3x
func BenchmarkSubAgentFanOut(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run("agents="+strconv.Itoa(n), func(b *testing.B) { benchFanOut(b, n) })
	}
}

func benchFanOut(b *testing.B, n int) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	parents := make([]string, b.N)
	var turns []fakemodel.Turn
	for i := range parents {
		parents[i] = "fanout-" + stamp + "-" + strconv.Itoa(n) + "-" + strconv.Itoa(i)
		var spawn []fakemodel.ToolCall
		for range n {
			spawn = append(spawn, toolCall("spawn_agent", map[string]any{"message": "bench task"}))
		}
		steps := []fakemodel.Step{{ToolCalls: spawn}}
		for len(steps) < n {
			steps = append(steps, fakemodel.Step{Text: "unused"})
		}
		for k := range n {
			steps = append(steps, fakemodel.Step{ToolCalls: []fakemodel.ToolCall{toolCall("wait_agent", map[string]any{
				"targets": []string{workflows.AgentID(parents[i], k+1)}, "timeout_ms": 600000})}})
		}
		steps = append(steps, fakemodel.Step{Text: "all in"})
		turns = append(turns, fakemodel.Turn{Match: "fan out " + parents[i], Steps: steps})
	}
	turns = append(turns, fakemodel.Turn{Match: "bench task", Steps: []fakemodel.Step{{Text: "done"}}})
	w := StartFile(b, &fakemodel.Script{Turns: turns})
	w.StartWorker(WorkerOptions{Name: "bench-a", NoShellSnapshot: true})
	w.StartWorker(WorkerOptions{Name: "bench-b", NoShellSnapshot: true})
	cfg := w.Config("")
	cfg.Agents = &workflows.AgentsConfig{Enabled: true, MaxThreads: n}
	runFanOut(b, w, cfg, parents, n)
}

// BenchmarkTaskFanOut is [BenchmarkSubAgentFanOut] for claude-code's
// Task over Anthropic Messages: one answer with n Task calls, which run
// their agents side by side and return their results together, then the
// parent's answer.
//
//	go test ./dev/devtest/ -run '^$' -bench TaskFanOut -benchtime 3x
func BenchmarkTaskFanOut(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run("agents="+strconv.Itoa(n), func(b *testing.B) { benchTaskFanOut(b, n) })
	}
}

func benchTaskFanOut(b *testing.B, n int) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	parents := make([]string, b.N)
	var turns []fakemodel.Turn
	for i := range parents {
		parents[i] = "taskfan-" + stamp + "-" + strconv.Itoa(n) + "-" + strconv.Itoa(i)
		var tasks []fakemodel.ToolCall
		for range n {
			tasks = append(tasks, toolCall("Task", map[string]any{"description": "bench", "prompt": "bench task", "subagent_type": "general-purpose"}))
		}
		steps := []fakemodel.Step{{ToolCalls: tasks}}
		for len(steps) < n {
			steps = append(steps, fakemodel.Step{Text: "unused"})
		}
		steps = append(steps, fakemodel.Step{Text: "all in"})
		turns = append(turns, fakemodel.Turn{Match: "fan out " + parents[i], Steps: steps})
	}
	turns = append(turns, fakemodel.Turn{Match: "bench task", Steps: []fakemodel.Step{{Text: "done"}}})
	w := StartFile(b, &fakemodel.Script{Turns: turns})
	w.StartWorker(WorkerOptions{Name: "bench-a", NoShellSnapshot: true})
	w.StartWorker(WorkerOptions{Name: "bench-b", NoShellSnapshot: true})
	cfg := w.Config("")
	cfg.Harness = "claude-code"
	cfg.Provider.WireAPI = activities.WireMessages
	cfg.Provider.BaseURL = w.Model.BaseURL()
	cfg.Agents = &workflows.AgentsConfig{Enabled: true, MaxThreads: n}
	runFanOut(b, w, cfg, parents, n)
}

// runFanOut times the parents' turns, one after another, each fanning out
// to n agents, and reports per turn and per agent.
func runFanOut(b *testing.B, w *World, cfg workflows.ThreadConfig, parents []string, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	b.ResetTimer()
	for i := range b.N {
		resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parents[i], TaskQueue: TaskQueue, Config: cfg},
			workflows.StartTurnRequest{Prompt: "fan out " + parents[i]})
		if err != nil {
			b.Fatal(err)
		}
		if res := w.WaitTurn(ctx, parents[i], resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "all in" {
			b.Fatalf("parent turn: %+v", res)
		}
	}
	b.StopTimer()
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(per*1000, "ms/turn")
	b.ReportMetric(per*1000/float64(n), "ms/agent")
	b.ReportMetric(0, "ns/op")
}
