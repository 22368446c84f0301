package devtest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

var record = flag.Bool("record", false, "write histories for the replay test to workflows/testdata/histories")

const historiesDir = "../../workflows/testdata/histories"

func call(name, args string) fakemodel.ToolCall {
	return fakemodel.ToolCall{Name: name, Arguments: json.RawMessage(args)}
}

// TestRecordHistories runs, on the real server, one thread per feature of
// the baseline (workflows/baseline.go) and, with -record, saves every
// run's history for the replay test in package workflows; without -record
// it checks only that the scenarios run. Its files are those of
// workflows/testdata/histories (see the README there); one scenario
// rewrites its own:
//
//	go test ./dev/devtest/ -run TestRecordHistories -record
//	go test ./dev/devtest/ -run TestRecordHistories/failover -record
func TestRecordHistories(t *testing.T) {
	t.Run("basic", recordBasic)
	t.Run("approvals", recordApprovals)
	t.Run("pictures", recordPictures)
	t.Run("tools", recordTools)
	t.Run("uexec", recordUnifiedExec)
	t.Run("uexec-local", recordUnifiedExecLocal)
	t.Run("stop", recordStopCommand)
	t.Run("stop-on-worker", recordStopOnWorker)
	t.Run("failover", recordFailover)
	t.Run("compact", recordCompaction)
	t.Run("memory", recordMemory)
	t.Run("agents", recordAgents)
	t.Run("goal", recordGoal)
	t.Run("notice", recordNotice)
	t.Run("review", recordReview)
	t.Run("automation", recordAutomation)
	t.Run("bgterm", recordBgterm)
	t.Run("approvalstatus", recordApprovalStatus)
	t.Run("localcmd", recordLocalCommands)
	t.Run("localcmd-timed", recordLocalCommandsTimed)
	t.Run("localcmd-shown", recordLocalCommandsShown)
	t.Run("quiet", recordQuiet)
	t.Run("quick", recordQuick)
}

// recordBasic: a turn with shell, apply_patch, update_plan and an unknown
// tool, then a second turn; a turn and its thread continuing as new; a
// model error; an interrupted turn. Each with model calls as local
// activities and as regular ones.
func recordBasic(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "basic", Steps: []fakemodel.Step{
			{Reasoning: "look first", Text: "Looking.", ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["echo","hi"]}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("apply_patch", `{"input":"*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch"}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("update_plan", `{"plan":[{"step":"write note","status":"completed"}]}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("nonexistent_tool", `{}`)}},
			{Text: "basic done"},
		}},
		{Match: "second", Steps: []fakemodel.Step{{Text: "second done"}}},
		{Match: "interrupt", Steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["sleep","30"]}`)}}}},
		{Match: "long", Steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{call("shell", `{"command":["true"]}`)}, Repeat: 12}, {Text: "long done"}}},
		{Match: "broken", Steps: []fakemodel.Step{{Text: "x", FailStatus: 401, FailTimes: 9}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	for _, local := range []bool{true, false} {
		suffix := "local"
		if !local {
			suffix = "activity"
		}
		cfg := w.Config("")
		cfg.LocalModelCalls = local
		id, res := w.RunTurn(ctx, cfg, "basic")
		if res.Status != "completed" {
			t.Fatalf("basic: %s %s", res.Status, res.Error)
		}
		resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "second"})
		if err != nil {
			t.Fatal(err)
		}
		w.WaitTurn(ctx, id, resp.TurnID)
		w.save(ctx, "basic-"+suffix, id)

		long := cfg
		long.HistoryEventsCAN = 40
		id, res = w.RunTurn(ctx, long, "long")
		if res.Status != "completed" {
			t.Fatalf("long: %s %s", res.Status, res.Error)
		}
		w.save(ctx, "continue-as-new-"+suffix, id)

		id, res = w.RunTurn(ctx, cfg, "broken")
		if res.Status != "failed" {
			t.Fatalf("broken: %s", res.Status)
		}
		w.save(ctx, "model-error-"+suffix, id)

		id = fmt.Sprintf("interrupt-%s-%d", suffix, time.Now().UnixNano())
		resp, err = threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
			workflows.StartTurnRequest{Prompt: "interrupt"})
		if err != nil {
			t.Fatal(err)
		}
		err = threads.FollowTurn(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
			if e.Type == workflows.EventItemStarted {
				if err := threads.Interrupt(ctx, w.Client, id); err != nil {
					t.Error(err)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != "interrupted" {
			t.Fatalf("interrupt: %s", res.Status)
		}
		w.save(ctx, "interrupted-"+suffix, id)
	}
}

// recordApprovals: under approval policy "untrusted" a command is approved
// for the session, a second one of the same prefix runs without asking,
// and a third is denied.
func recordApprovals(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "ask first", Steps: []fakemodel.Step{
			{Shell: "touch approved.txt"},
			{Shell: "touch again.txt"},
			{Shell: "rm -f approved.txt"},
			{Text: "approvals done"},
		}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.ApprovalPolicy = "untrusted"
	id := "approvals-" + time.Now().Format("150405.000")
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "ask first"})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	err = threads.FollowTurn(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		if e.Type != workflows.EventApprovalRequested || e.Approval == nil {
			return
		}
		asked++
		d := workflows.DecisionApproveForSession
		if asked > 1 {
			d = workflows.DecisionDeny
		}
		if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: id, ItemID: e.Approval.ItemID, Decision: d}); err != nil {
			t.Errorf("deciding: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "approvals done" || asked < 2 {
		t.Fatalf("approvals turn (asked %d times): %+v", asked, res)
	}
	w.save(ctx, "approvals", id)
}

// save writes the histories of a thread and its turns (every run).
func (w *World) save(ctx context.Context, name, threadID string) {
	w.TB.Helper()
	if !*record {
		return
	}
	v := w.awaitTakenIn(ctx, threadID)
	w.saveChain(ctx, name+"-thread", threadID)
	for _, turn := range v.Turns {
		w.saveChain(ctx, fmt.Sprintf("%s-turn-%d", name, turn.Number), turn.TurnID)
	}
}

// awaitTakenIn waits until a thread has taken in its last turn's result
// (a turn's end reaches its client before its thread) and returns the
// thread's view then.
func (w *World) awaitTakenIn(ctx context.Context, threadID string) workflows.ThreadView {
	w.TB.Helper()
	for {
		v, err := threads.Read(ctx, w.Client, threadID)
		if err != nil {
			w.TB.Fatal(err)
		}
		if v.RunningTurn == "" {
			return v
		}
		select {
		case <-ctx.Done():
			w.TB.Fatalf("thread %s did not take in its turn: %v", threadID, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (w *World) saveChain(ctx context.Context, name, workflowID string) {
	w.TB.Helper()
	if !*record {
		return
	}
	runs, err := w.ChainStats(ctx, workflowID)
	if err != nil {
		w.TB.Fatal(err)
	}
	for i, r := range runs {
		file := name
		if len(runs) > 1 {
			file = fmt.Sprintf("%s-run%d", name, i+1)
		}
		h := &historypb.History{}
		it := w.Client.GetWorkflowHistory(ctx, workflowID, r.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				w.TB.Fatal(err)
			}
			h.Events = append(h.Events, ev)
		}
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		if err != nil {
			w.TB.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(historiesDir, file+".json"), b, 0o644); err != nil {
			w.TB.Fatal(err)
		}
	}
}
