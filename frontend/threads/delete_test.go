package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/devtest"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

func call(name string, args any) fakemodel.ToolCall {
	b, _ := json.Marshal(args)
	return fakemodel.ToolCall{Name: name, Arguments: b}
}

// startIdle starts a thread with no turn, as app-server thread/start and
// thread/fork do (state set: a fork's).
func startIdle(t *testing.T, ctx context.Context, w *devtest.World, cfg workflows.ThreadConfig, state *workflows.ThreadState) string {
	t.Helper()
	id := threads.NewID()
	_, err := w.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: devtest.TaskQueue, WorkflowTaskTimeout: workflows.ThreadTaskTimeout},
		workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: id, Config: cfg, State: state})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func blobCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && activities.ValidRef(d.Name()) {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// gone waits until a workflow id is no more (deletion is asynchronous).
func gone(t *testing.T, ctx context.Context, c client.Client, id string) {
	t.Helper()
	for {
		_, err := c.DescribeWorkflowExecution(ctx, id, "")
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s still exists after its thread was deleted (%v)", id, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Deleting a thread removes its workflow runs, its turns', its
// sub-agent's, and the store blobs only they used; a fork of it, which
// shares its transcript, goes on with that history.
func TestDeleteThreadTurnsSubAgentsAndOwnBlobs(t *testing.T) {
	id := threads.NewID()
	agent := workflows.AgentID(id, 1)
	w := devtest.Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "after the delete", Steps: []fakemodel.Step{{Text: "the fork still answers"}}},
		{Match: "spawn a helper", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("spawn_agent", map[string]any{"message": "investigate alpha"})}},
			{ToolCalls: []fakemodel.ToolCall{call("wait_agent", map[string]any{"targets": []string{agent}, "timeout_ms": 600000})}},
			{Text: "parent done"},
		}},
		{Match: "investigate alpha", Steps: []fakemodel.Step{{Text: "alpha report, only the helper wrote this"}}},
	}})
	w.StartWorker(devtest.WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := w.Client
	cfg := w.Config("")
	cfg.SearchAttributes = true
	cfg.Agents = &workflows.AgentsConfig{Enabled: true}

	resp, err := threads.Start(ctx, c, threads.NewThread{ThreadID: id, TaskQueue: devtest.TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "spawn a helper"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := threads.Outcome(ctx, c, resp.TurnID); err != nil || out.FinalMessage != "parent done" {
		t.Fatalf("the parent's turn: %+v %v", out, err)
	}
	st, err := threads.State(ctx, c, id)
	if err != nil {
		t.Fatal(err)
	}
	fork := startIdle(t, ctx, w, cfg, &workflows.ThreadState{Config: cfg, Carried: workflows.Carried{Transcript: st.Transcript}, NextTurn: 1})
	before := blobCount(t, w.Store)

	store, err := activities.NewStore(w.Store)
	if err != nil {
		t.Fatal(err)
	}
	del, err := threads.Delete(ctx, c, "default", id, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(del.Threads) != 2 || del.Threads[0] != id || del.Threads[1] != agent || del.BlobsKept != "" {
		t.Fatalf("deleted %+v; want the thread and its sub-agent %s", del, agent)
	}
	for _, wid := range []string{id, workflows.TurnWorkflowID(id, 1), agent, workflows.TurnWorkflowID(agent, 1)} {
		gone(t, ctx, c, wid)
	}
	// Gone from visibility too (what lists and the Temporal UI read).
	for {
		list, err := threads.List(ctx, c, threads.ListOptions{All: true, SearchAttributes: true})
		if err != nil {
			t.Fatal(err)
		}
		left := false
		for _, s := range list {
			left = left || s.ThreadID == id || s.ThreadID == agent
		}
		if !left {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("still listed after the delete: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := blobCount(t, w.Store)
	if del.Blobs == 0 || after != before-del.Blobs {
		t.Fatalf("blobs: %d before, %d after, %d reported deleted", before, after, del.Blobs)
	}
	if _, _, err := store.Transcript(st.Transcript); err != nil {
		t.Fatalf("the fork's transcript lost a blob: %v", err)
	}
	next, err := threads.Reply(ctx, c, fork, workflows.StartTurnRequest{Prompt: "after the delete"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := threads.Outcome(ctx, c, next.TurnID); err != nil || out.FinalMessage != "the fork still answers" {
		t.Fatalf("the fork's turn: %+v %v", out, err)
	}
	if len(w.Model.Server.RequestsContaining("parent done")) == 0 {
		t.Fatal("no model request carried the deleted thread's history into its fork")
	}
	if _, err := threads.Delete(ctx, c, "default", id, store); !errors.Is(err, threads.ErrThreadNotFound) {
		t.Fatalf("deleting it again: %v", err)
	}
}

// Items injected into an idle thread reach the model with its next turn;
// an idle thread lists as idle, under its name.
func TestInjectItemsAndIdleNamedListing(t *testing.T) {
	w := devtest.Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "side question", Steps: []fakemodel.Step{{Text: "side answer"}}},
	}})
	w.StartWorker(devtest.WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := w.Client
	cfg := w.Config("")
	cfg.SearchAttributes = true
	id := startIdle(t, ctx, w, cfg, nil)

	if err := threads.SetName(ctx, c, id, "the named one"); err != nil {
		t.Fatal(err)
	}
	for {
		list, err := threads.List(ctx, c, threads.ListOptions{SearchAttributes: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Title == "the named one" {
			if list[0].Status != threads.StatusIdle {
				t.Fatalf("a thread with no turn lists as %q", list[0].Status)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("listing: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
	}

	marker := "<side_conversation>SIDE-MARKER-42</side_conversation>"
	if err := threads.InjectItems(ctx, c, id, []workflows.Entry{{Kind: "user", Text: marker, Context: true}}); err != nil {
		t.Fatal(err)
	}
	resp, err := threads.Reply(ctx, c, id, workflows.StartTurnRequest{Prompt: "side question"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := threads.Outcome(ctx, c, resp.TurnID); err != nil || out.FinalMessage != "side answer" {
		t.Fatalf("the turn: %+v %v", out, err)
	}
	reqs := w.Model.Server.RequestsContaining("side question")
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "SIDE-MARKER-42") {
		t.Fatalf("the injected item did not reach the model: %d requests", len(reqs))
	}
	if err := threads.InjectItems(ctx, c, "no-such-thread", nil); !errors.Is(err, threads.ErrThreadNotFound) {
		t.Fatalf("injecting into an unknown thread: %v", err)
	}
}
