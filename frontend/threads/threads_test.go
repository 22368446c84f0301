package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devtest"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

func shell(argv ...string) fakemodel.ToolCall {
	b, _ := json.Marshal(map[string]any{"command": argv})
	return fakemodel.ToolCall{Name: "shell", Arguments: b}
}

// A thread's life through the package, against the embedded server and a
// real worker: start with a first turn, follow it from the start and
// again from the middle, reply, read, list, archive; an archived thread
// refuses a reply, an unknown one is not found.
func TestThreadLifeThroughThePackage(t *testing.T) {
	w := devtest.Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "again", Steps: []fakemodel.Step{{Text: "second answer"}}},
		{Steps: []fakemodel.Step{{ToolCalls: []fakemodel.ToolCall{shell("echo", "one")}}, {Text: "first answer"}}},
	}})
	w.StartWorker(devtest.WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := w.Client

	id := threads.NewID()
	cfg := w.Config("")
	cfg.SearchAttributes = true
	resp, err := threads.Start(ctx, c, threads.NewThread{ThreadID: id, TaskQueue: devtest.TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "run echo"})
	if err != nil {
		t.Fatal(err)
	}
	var all []workflows.Event
	res, err := threads.Follow(ctx, c, resp.TurnID, 0, func(e workflows.Event) { all = append(all, e) })
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || res.Status != workflows.StatusCompleted || res.FinalMessage != "first answer" {
		t.Fatalf("the result with the end: %+v", res)
	}
	if len(all) < 4 || all[0].Type != workflows.EventTurnStarted || all[len(all)-1].Type != workflows.EventTurnCompleted {
		t.Fatalf("followed events: %+v", all)
	}
	for i, e := range all {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	// From a sequence number: only what comes after it.
	var late []workflows.Event
	if _, err := threads.Follow(ctx, c, resp.TurnID, 2, func(e workflows.Event) { late = append(late, e) }); err != nil {
		t.Fatal(err)
	}
	if len(late) != len(all)-2 || late[0].Seq != 3 {
		t.Fatalf("from seq 2: %d events, first %+v; want %d from seq 3", len(late), late[0], len(all)-2)
	}

	// Reply: the next turn, after the thread has taken in the first.
	next, err := threads.Reply(ctx, c, id, workflows.StartTurnRequest{Prompt: "again"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := threads.Outcome(ctx, c, next.TurnID)
	if err != nil || out.FinalMessage != "second answer" {
		t.Fatalf("second turn: %+v %v", out, err)
	}

	// The thread takes in the turn's end a moment after the turn closes.
	var v workflows.ThreadView
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if v, err = threads.Read(ctx, c, id); err != nil {
			t.Fatal(err)
		}
		if v.RunningTurn == "" {
			break
		}
	}
	if len(v.Turns) != 2 || v.RunningTurn != "" {
		t.Fatalf("thread view: %d turns, running %q", len(v.Turns), v.RunningTurn)
	}
	listed := false
	for deadline := time.Now().Add(30 * time.Second); !listed && time.Now().Before(deadline); {
		list, err := threads.List(ctx, c, threads.ListOptions{Cwd: w.Dir, SearchAttributes: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			listed = listed || s.ThreadID == id && s.Title == "run echo"
		}
		if !listed {
			time.Sleep(100 * time.Millisecond) // visibility takes the start in a moment later
		}
	}
	if !listed {
		list, err := threads.List(ctx, c, threads.ListOptions{Cwd: w.Dir, SearchAttributes: true})
		t.Fatalf("the thread is not in the list with its prompt as title: %+v %v", list, err)
	}

	if err := threads.Archive(ctx, c, id); err != nil {
		t.Fatal(err)
	}
	if open, err := threads.Open(ctx, c, id); err != nil || open {
		t.Fatalf("archived thread open=%v err=%v", open, err)
	}
	if _, err := threads.Reply(ctx, c, id, workflows.StartTurnRequest{Prompt: "again"}); !errors.Is(err, threads.ErrThreadArchived) {
		t.Fatalf("a reply to an archived thread: %v", err)
	}
	if _, err := threads.Read(ctx, c, "no-such-thread"); !errors.Is(err, threads.ErrThreadNotFound) {
		t.Fatalf("reading an unknown thread: %v", err)
	}
}

// A command that needs approval waits for it; the decision given through
// the package runs it, and the follower sees the request and its answer.
func TestApproveThroughThePackage(t *testing.T) {
	w := devtest.Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{shell("touch", "approved")}}, {Text: "touched"},
	}}}})
	w.StartWorker(devtest.WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.ApprovalPolicy = "untrusted"
	id := fmt.Sprintf("approve-%d", time.Now().UnixNano())
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: devtest.TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "touch it"})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	res, err := threads.Follow(ctx, w.Client, resp.TurnID, 0, func(e workflows.Event) {
		types = append(types, e.Type)
		if e.Type != workflows.EventApprovalRequested {
			return
		}
		pending, err := threads.PendingApprovals(ctx, w.Client, id)
		if err != nil || len(pending) != 1 || pending[0].ItemID != e.Approval.ItemID {
			t.Errorf("pending approvals: %+v %v", pending, err)
			return
		}
		if _, err := threads.Decide(ctx, w.Client, workflows.ApprovalDecision{ThreadID: id, ItemID: e.Approval.ItemID, Decision: workflows.DecisionApprove}); err != nil {
			t.Errorf("deciding: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || res.Status != workflows.StatusCompleted {
		t.Fatalf("turn: %+v (events %v)", res, types)
	}
	if _, err := os.Stat(filepath.Join(cfg.Cwd, "approved")); err != nil {
		t.Fatalf("the approved command did not run: %v (events %v)", err, types)
	}
	resolved := false
	for _, typ := range types {
		resolved = resolved || typ == workflows.EventApprovalResolved
	}
	if !resolved {
		t.Fatalf("no approval.resolved among %v", types)
	}
}
