package devtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// idleTool is a kind of quiet tool call that TestIdleOpenTurnsCostLittle
// parks beside its silent commands, in the same window: a turn waiting on
// an MCP call, a turn polling a quiet unified-exec session, a turn
// waiting for an approval, a thread watching a background terminal. Each kind has a host queue and a
// tools-only worker of its own, whose calls (heartbeats, wakes) its own
// client counts, and its followers their own client.
type idleTool struct {
	name string
	// parked is the activity that, once started, parks the turn (or the
	// thread, onThread); approval: the turn waits for an approval
	// instead, which finish approves.
	parked   string
	approval bool
	onThread bool
	followed bool
	steps    []fakemodel.Step
	config   func(*workflows.ThreadConfig)

	worker, follower rpcCounter
	threads, turns   []string
	ended            chan error
	before           [2]map[string]int
}

// idleTools are the kinds, whose commands and calls last sleep.
func idleTools(t *testing.T, sleep time.Duration) []*idleTool {
	secs := int(sleep.Seconds())
	script := fmt.Sprintf("sleep %d; echo woke", secs)
	mcp := mcptest.BuildServer(t)
	return []*idleTool{{
		name: "mcp", parked: "MCPCallTool", followed: true,
		steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{toolCall("mcp__slow__sleep", map[string]int{"ms": secs * 1000})}}, {Text: "done"}},
		config: func(c *workflows.ThreadConfig) {
			c.MCPServers = []mcpclient.Server{{Name: "slow", Command: mcp, ToolTimeout: sleep + time.Minute}}
		},
	}, {
		// The poll's wait is at most 5 min: it ends with the process.
		name: "uexec", parked: "WriteStdin", followed: true,
		steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": script, "yield_time_ms": 250})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("write_stdin", map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 300000})}},
			{Text: "done"},
		},
	}, {
		// No activity runs while it waits.
		name: "approval", parked: "an approval", approval: true, followed: true,
		steps:  []fakemodel.Step{{Shell: "touch approved.txt"}, {Text: "done"}},
		config: func(c *workflows.ThreadConfig) { c.ApprovalPolicy = "untrusted" },
	}, {
		name: "bgterm", parked: "WatchSession", onThread: true,
		steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("exec_command", map[string]any{"cmd": script, "yield_time_ms": 250})}},
			{Text: "left running"},
		},
		config: func(c *workflows.ThreadConfig) { c.BackgroundTerminals = &workflows.BackgroundTerminalsConfig{} },
	}}
}

func (k *idleTool) prompt() string { return "IDLE-" + k.name }

func (k *idleTool) turn() fakemodel.Turn { return fakemodel.Turn{Match: k.prompt(), Steps: k.steps} }

// start starts the kind's worker and n threads, each with its turn, and
// follows the turns of a followed kind.
func (k *idleTool) start(ctx context.Context, t *testing.T, w *World, n int) {
	queue := TaskQueue + "-host-idle-" + k.name
	w.StartWorker(WorkerOptions{Name: "idle-" + k.name, HostQueue: queue, ToolsOnly: true, NoShellSnapshot: true,
		Client: dialCounting(w, &k.worker)})
	fc := dialCounting(w, &k.follower)
	cfg := w.Config(queue)
	if k.config != nil {
		k.config(&cfg)
	}
	k.ended = make(chan error, n)
	for i := range n {
		id := fmt.Sprintf("idle-%s-%d", k.name, i)
		resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
			workflows.StartTurnRequest{Prompt: k.prompt()})
		if err != nil {
			t.Fatal(err)
		}
		k.threads, k.turns = append(k.threads, id), append(k.turns, resp.TurnID)
		if k.followed {
			go follow(ctx, fc, resp.TurnID, k.ended)
		}
	}
}

// awaitParked waits until every turn (or thread) waits in its activity.
func (k *idleTool) awaitParked(ctx context.Context, t *testing.T, w *World) {
	ids := k.turns
	if k.onThread {
		ids = k.threads
	}
	for _, id := range ids {
		if k.approval {
			for len(k.pending(ctx, t, w, id)) == 0 {
				select {
				case <-ctx.Done():
					t.Fatalf("no approval asked in %s", id)
				case <-time.After(20 * time.Millisecond):
				}
			}
			continue
		}
		awaitActivityStarted(ctx, t, w, id, k.parked)
	}
}

// pending are the approvals turn waits for.
func (k *idleTool) pending(ctx context.Context, t *testing.T, w *World, turn string) []workflows.Approval {
	a, err := threads.TurnApprovals(ctx, w.Client, turn)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (k *idleTool) mark() { k.before = [2]map[string]int{k.worker.snapshot(), k.follower.snapshot()} }

// measure logs what the kind cost over window since mark, per turn, and
// fails the test above the bound.
func (k *idleTool) measure(t *testing.T, n int, window time.Duration) {
	perTurn, byMethod, _ := rates(k.before[0], k.worker.snapshot(), n, window)
	fPerTurn, fByMethod, _ := rates(k.before[1], k.follower.snapshot(), n, window)
	t.Logf("%d parked in %s, over %v: worker %.4f RPC/s per turn %v; followers %.4f %v; in all %.4f",
		n, k.parked, window, perTurn, byMethod, fPerTurn, fByMethod, perTurn+fPerTurn)
	if perTurn+fPerTurn > idleBound {
		t.Errorf("a turn parked in %s costs %.4f RPC/s (worker %.4f, follower %.4f), want at most %.2f",
			k.parked, perTurn+fPerTurn, perTurn, fPerTurn, idleBound)
	}
}

// finish waits for the turns to end (a background terminal's thread has
// none left: its process ends, which the thread takes in).
func (k *idleTool) finish(ctx context.Context, t *testing.T, w *World) {
	if k.onThread {
		return
	}
	for i, turn := range k.turns {
		for _, a := range k.pending(ctx, t, w, turn) {
			if !k.approval {
				continue
			}
			if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: workflows.DecisionApprove}); err != nil {
				t.Fatal(err)
			}
		}
		if res := w.WaitTurn(ctx, k.threads[i], turn); res.Status != workflows.StatusCompleted {
			t.Fatalf("turn %s: %s %s", turn, res.Status, res.Error)
		}
	}
	if k.followed {
		for range k.turns {
			if err := <-k.ended; err != nil {
				t.Fatal(err)
			}
		}
	}
}
