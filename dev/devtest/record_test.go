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

// TestRecordHistories runs threads over the workflow paths on the real
// server and, with -record, saves every run's history for the replay test
// in package workflows. Without -record it checks only that the scenarios
// run.
func TestRecordHistories(t *testing.T) {
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

// save writes the histories of a thread and its turns (every run).
func (w *World) save(ctx context.Context, name, threadID string) {
	w.TB.Helper()
	if !*record {
		return
	}
	var v workflows.ThreadView
	var err error
	for {
		// Wait until the thread has taken in its last turn's result.
		if v, err = threads.Read(ctx, w.Client, threadID); err != nil {
			w.TB.Fatal(err)
		}
		if v.RunningTurn == "" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.saveChain(ctx, name+"-thread", threadID)
	for _, turn := range v.Turns {
		w.saveChain(ctx, fmt.Sprintf("%s-turn-%d", name, turn.Number), turn.TurnID)
	}
}

func (w *World) saveChain(ctx context.Context, name, workflowID string) {
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
