package devtest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

var investigations = []string{"alpha", "beta", "gamma"}

// agentsScript: the parent (its prompt contains "three independent
// investigations") spawns one sub-agent per investigation in one answer,
// waits for each in turn, and answers with what they found. Each
// sub-agent runs one command that records its start and end under dir,
// then reports.
func agentsScript(parent, dir string, sleep float64) *fakemodel.Script {
	var spawns, steps []fakemodel.Step
	var calls []fakemodel.ToolCall
	for _, name := range investigations {
		calls = append(calls, toolCall("spawn_agent", map[string]any{"message": "investigate " + name}))
	}
	spawns = append(spawns, fakemodel.Step{ToolCalls: calls})
	steps = append(steps, spawns...)
	for len(steps) < len(investigations) {
		steps = append(steps, fakemodel.Step{Text: "unused"})
	}
	for i := range investigations {
		steps = append(steps, fakemodel.Step{ToolCalls: []fakemodel.ToolCall{toolCall("wait_agent", map[string]any{
			"targets": []string{workflows.AgentID(parent, i+1)}, "timeout_ms": 600000})}})
	}
	steps = append(steps, fakemodel.Step{Text: "combined: the three reports are in"})
	turns := []fakemodel.Turn{{Match: "three independent investigations", Steps: steps}}
	for _, name := range investigations {
		cmd := "date +%s.%N >> " + filepath.Join(dir, name+".start") + "; sleep " + strconv.FormatFloat(sleep, 'f', 1, 64) +
			"; date +%s.%N >> " + filepath.Join(dir, name+".end") + "; echo " + name + "-evidence"
		turns = append(turns, fakemodel.Turn{Match: "investigate " + name, Steps: []fakemodel.Step{
			{Shell: cmd},
			{Text: name + " report"},
		}})
	}
	return &fakemodel.Script{Turns: turns}
}

func agentsConfig(w *World) workflows.ThreadConfig {
	cfg := w.Config("")
	cfg.Agents = &workflows.AgentsConfig{Enabled: true}
	return cfg
}

func readTimes(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, l := range strings.Fields(string(b)) {
		f, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// TestSubAgentsRunInParallelOnTwoWorkers: a parent spawns three
// sub-agents; their turns, scheduled like any thread's, run side by side
// on two workers; the parent's wait_agent calls return the three reports.
func TestSubAgentsRunInParallelOnTwoWorkers(t *testing.T) {
	parent := "agents-parallel-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := t.TempDir()
	w := Start(t, agentsScript(parent, dir, 2))
	w.StartWorker(WorkerOptions{Name: "worker-a", NoShellSnapshot: true})
	w.StartWorker(WorkerOptions{Name: "worker-b", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: agentsConfig(w)},
		workflows.StartTurnRequest{Prompt: "run three independent investigations in parallel"})
	if err != nil {
		t.Fatal(err)
	}
	begun := float64(time.Now().UnixNano()) / 1e9
	res := w.WaitTurn(ctx, parent, resp.TurnID)
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "combined: the three reports are in" {
		t.Fatalf("parent turn: %+v", res)
	}
	t.Logf("the parent's turn took %.1fs", float64(time.Now().UnixNano())/1e9-begun)
	checkReports(t, w, parent)
	if t.Failed() {
		return
	}
	// The parent's model was told of its agents' ends (Codex's notice,
	// after a wait's output); the script's steps went on regardless.
	asked := w.Model.Server.RequestsContaining("run three independent investigations")
	last := string(asked[len(asked)-1].Body)
	told := 0
	for _, name := range investigations {
		if strings.Contains(last, `\"completed\":\"`+name+` report\"}}\n</subagent_notification>`) {
			told++
		}
	}
	t.Logf("the parent's last request carries %d of 3 notices", told)
	if told == 0 {
		t.Errorf("the parent's last request carries no <subagent_notification>: ...%s", last[max(0, len(last)-3000):])
	}
	// Side by side: every command started before any ended.
	var lastStart, firstEnd float64
	for _, name := range investigations {
		s, e := readTimes(t, filepath.Join(dir, name+".start")), readTimes(t, filepath.Join(dir, name+".end"))
		if len(s) != 1 || len(e) != 1 {
			t.Fatalf("%s ran %d times (%d ended)", name, len(s), len(e))
		}
		lastStart = max(lastStart, s[0])
		if firstEnd == 0 || e[0] < firstEnd {
			firstEnd = e[0]
		}
	}
	if lastStart >= firstEnd {
		t.Errorf("the sub-agents' commands did not overlap: last start %.3f, first end %.3f", lastStart, firstEnd)
	}
}

// checkReports reads the parent's sub-agents: three, completed with
// their reports, each a thread whose parent is the root.
func checkReports(t *testing.T, w *World, parent string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	view, err := threads.Read(ctx, w.Client, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Agents) != 3 {
		t.Fatalf("parent has %d sub-agents", len(view.Agents))
	}
	for i, a := range view.Agents {
		want := investigations[i] + " report"
		child, err := threads.Read(ctx, w.Client, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != workflows.AgentCompleted || a.Message != want {
			t.Errorf("sub-agent %d: %s %q, want completed %q; its turns %+v", i+1, a.Status, a.Message, want, child.Turns)
		}
		if child.Parent == nil || child.Parent.ThreadID != parent || child.Parent.Depth != 1 {
			t.Errorf("sub-agent %s: parent %+v", a.ID, child.Parent)
		}
	}
}

// TestSubAgentsSurviveAWorkerStop: while the parent waits and its
// sub-agents run their commands, one of the two workers stops. The
// other takes over every workflow; a command of the stopped worker is
// reported interrupted, never run again; the parent gets its answer.
func TestSubAgentsSurviveAWorkerStop(t *testing.T) {
	parent := "agents-stop-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := t.TempDir()
	w := Start(t, agentsScript(parent, dir, 4))
	a := w.StartWorker(WorkerOptions{Name: "worker-a", NoShellSnapshot: true})
	w.StartWorker(WorkerOptions{Name: "worker-b", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: agentsConfig(w)},
		workflows.StartTurnRequest{Prompt: "run three independent investigations in parallel"})
	if err != nil {
		t.Fatal(err)
	}
	// Until every command has started.
	// (On a loaded machine a command may take a minute to start.)
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		n := 0
		for _, name := range investigations {
			n += len(readTimes(t, filepath.Join(dir, name+".start")))
		}
		if n == len(investigations) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d commands started", n)
		}
	}
	a.Stop()
	res := w.WaitTurn(ctx, parent, resp.TurnID)
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "combined: the three reports are in" {
		t.Fatalf("parent turn: %+v", res)
	}
	checkReports(t, w, parent)
	for _, name := range investigations {
		if s := readTimes(t, filepath.Join(dir, name+".start")); len(s) != 1 {
			t.Errorf("%s's command ran %d times", name, len(s))
		}
	}
}
