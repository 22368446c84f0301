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

// TestSubAgentApprovalReachesTheRoot: under approval_policy untrusted a
// sub-agent's command asks; the client following the root's turn sees
// the request (with the sub-agent's thread, turn and item), approves it
// on the sub-agent's turn, and a second answer is refused. The command
// runs once and the root's log also tells that the approval was decided.
func TestSubAgentApprovalReachesTheRoot(t *testing.T) {
	parent := "agents-approval-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	child := workflows.AgentID(parent, 1)
	script := &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("spawn_agent", map[string]any{"message": "record the run"})}},
			{ToolCalls: []fakemodel.ToolCall{toolCall("wait_agent", map[string]any{"targets": []string{child}, "timeout_ms": 600000})}},
			{Text: "the sub-agent is done"},
		}},
		{Match: "record the run", Steps: []fakemodel.Step{
			{Shell: "echo once >> " + ran + "; echo recorded"},
			{Text: "recorded it"},
		}},
	}}
	w := Start(t, script)
	w.StartWorker(WorkerOptions{NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := agentsConfig(w)
	cfg.ApprovalPolicy, cfg.SandboxMode = "untrusted", "danger-full-access" // the test binary is no sandbox helper
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "delegate the recording"})
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan workflows.Approval, 4)
	resolved := make(chan workflows.Approval, 4)
	done := make(chan *workflows.TurnResult, 1)
	go func() {
		res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
			switch {
			case e.Type == workflows.EventAgentApprovalRequested && e.Approval != nil:
				asked <- *e.Approval
			case e.Type == workflows.EventAgentApprovalResolved && e.Approval != nil:
				resolved <- *e.Approval
			}
		})
		if err != nil {
			t.Errorf("following the root: %v", err)
		}
		done <- res
	}()
	var a workflows.Approval
	select {
	case a = <-asked:
	case res := <-done:
		t.Fatalf("the root's turn ended before any sub-agent approval reached it: %+v", res)
	case <-ctx.Done():
		t.Fatal("no sub-agent approval reached the root's follower")
	}
	if a.ThreadID != child || !strings.HasPrefix(a.TurnID, child+"/turn-") || a.ItemID == "" || !strings.Contains(a.Command, ran) {
		t.Fatalf("relayed approval: %+v (want thread %s)", a, child)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatalf("the command ran before it was approved (%v)", err)
	}
	// A client that attaches to the root later reads it with the root
	// turn's pending approvals.
	if pending, err := threads.TurnApprovals(ctx, w.Client, resp.TurnID); err != nil || len(pending) != 1 || pending[0].ThreadID != child || pending[0].ItemID != a.ItemID {
		t.Fatalf("the root turn's pending approvals: %+v, %v", pending, err)
	}
	if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: workflows.DecisionApprove}); err != nil {
		t.Fatalf("approving the sub-agent's command: %v", err)
	}
	if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: workflows.DecisionDeny}); err == nil {
		t.Error("a second answer to the same approval was taken")
	}
	var r workflows.Approval
	select {
	case r = <-resolved:
	case <-ctx.Done():
		t.Fatal("the root's log never told that the approval was decided")
	}
	if r.ItemID != a.ItemID || r.Decision != workflows.DecisionApprove {
		t.Errorf("resolved: %+v", r)
	}
	if pending, err := threads.TurnApprovals(ctx, w.Client, resp.TurnID); err != nil || len(pending) != 0 {
		t.Errorf("the root turn's pending approvals after the decision: %+v, %v", pending, err)
	}
	var res *workflows.TurnResult
	select {
	case res = <-done:
	case <-time.After(40 * time.Second):
		pv, _ := threads.Read(ctx, w.Client, parent)
		cv, _ := threads.Read(ctx, w.Client, child)
		b, _ := os.ReadFile(ran)
		if p, err := threads.Events(ctx, w.Client, cv.RunningTurn, 0); err == nil {
			for _, e := range p.Events {
				t.Logf("child event %s %+v %+v", e.Type, e.Item, e.Approval)
			}
		}
		t.Fatalf("root turn still running: parent %+v\nchild %+v\nran %q", pv, cv, b)
	}
	if res == nil || res.Status != workflows.StatusCompleted || res.FinalMessage != "the sub-agent is done" {
		t.Fatalf("root turn: %+v", res)
	}
	if b, err := os.ReadFile(ran); err != nil || string(b) != "once\n" {
		t.Errorf("the command's record: %q, %v (want it run once)", b, err)
	}
	// What the relay costs, for the README: the histories' sizes.
	for _, id := range []string{parent, resp.TurnID, child, workflows.TurnWorkflowID(child, 1)} {
		if st, err := w.ChainStats(ctx, id); err == nil && len(st) > 0 {
			t.Logf("%s: %d events, %d bytes", id, st[0].Events, st[0].Bytes)
		}
	}
	view, err := threads.Read(ctx, w.Client, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Agents) != 1 || view.Agents[0].Status != workflows.AgentCompleted || view.Agents[0].Message != "recorded it" {
		t.Errorf("sub-agents: %+v", view.Agents)
	}
}

// TestSubAgentApprovalWaitsForTheRootsNextTurn: the root's turn ends
// right after the spawn, so no turn of the root runs when the sub-agent
// asks. The root thread keeps the approval, and its next turn starts
// with it in its log, where the client following that turn answers it.
func TestSubAgentApprovalWaitsForTheRootsNextTurn(t *testing.T) {
	parent := "agents-approval-later-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ran := filepath.Join(t.TempDir(), "ran")
	child := workflows.AgentID(parent, 1)
	script := &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "start a helper", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("spawn_agent", map[string]any{"message": "record the run"})}},
			{Text: "spawned"},
		}},
		{Match: "record the run", Steps: []fakemodel.Step{
			{Shell: "echo once >> " + ran + "; echo recorded"},
			{Text: "recorded it"},
		}},
		{Match: "check on the helper", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{toolCall("wait_agent", map[string]any{"targets": []string{child}, "timeout_ms": 600000})}},
			{Text: "the helper is done"},
		}},
	}}
	w := Start(t, script)
	w.StartWorker(WorkerOptions{NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := agentsConfig(w)
	cfg.ApprovalPolicy, cfg.SandboxMode = "untrusted", "danger-full-access" // the test binary is no sandbox helper
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: parent, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "start a helper"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, parent, resp.TurnID); res.Status != workflows.StatusCompleted {
		t.Fatalf("first root turn: %+v", res)
	}
	// Until the root thread holds the sub-agent's request.
	for {
		v, err := threads.Read(ctx, w.Client, parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.AgentApprovals) == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the root thread never heard of the sub-agent's approval: %+v", v)
		case <-time.After(50 * time.Millisecond):
		}
	}
	turn2, err := threads.Reply(ctx, w.Client, parent, workflows.StartTurnRequest{Prompt: "check on the helper"})
	if err != nil {
		t.Fatal(err)
	}
	decided := false
	res, err := threads.Follow(ctx, w.Client, turn2.TurnID, 0, func(e workflows.Event) {
		if e.Type != workflows.EventAgentApprovalRequested || e.Approval == nil || decided {
			return
		}
		decided = true
		if e.Approval.ThreadID != child {
			t.Errorf("relayed approval names thread %s, want %s", e.Approval.ThreadID, child)
		}
		if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: e.Approval.ThreadID, ItemID: e.Approval.ItemID, Decision: workflows.DecisionApprove}); err != nil {
			t.Errorf("approving: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !decided || res.Status != workflows.StatusCompleted || res.FinalMessage != "the helper is done" {
		t.Fatalf("second root turn (asked: %v): %+v", decided, res)
	}
	if b, err := os.ReadFile(ran); err != nil || string(b) != "once\n" {
		t.Errorf("the command's record: %q, %v (want it run once)", b, err)
	}
	if v, err := threads.Read(ctx, w.Client, parent); err != nil || len(v.AgentApprovals) != 0 {
		t.Errorf("the root still holds approvals: %+v, %v", v.AgentApprovals, err)
	}
}
