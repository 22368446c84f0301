package devtest

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Two workers with stores of their own (two machines, no shared file
// system) and a blob server both reach: a thread's second turn, on the
// worker that never saw the first, reads the whole conversation.
func TestWorkersWithoutASharedDiskShareTranscriptsThroughTheBlobServer(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "first", Steps: []fakemodel.Step{{Shell: "echo output-of-turn-one"}, {Text: "answer of turn one"}}},
		{Match: "second", Steps: []fakemodel.Step{{Text: "answer of turn two"}}},
	}})
	blobs, err := activities.NewStore(filepath.Join(w.Dir, "blob-server"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(activities.BlobHandler(blobs, "s3cret"))
	defer srv.Close()
	remote := &activities.HTTPRemote{BaseURL: srv.URL, Token: "s3cret"}
	storeA, storeB := filepath.Join(w.Dir, "store-a"), filepath.Join(w.Dir, "store-b")
	a := w.StartWorker(WorkerOptions{Name: "worker-a", HostQueue: "host-test", Store: storeA, Remote: remote})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cfg := w.Config("host-test")
	thread, res := w.RunTurn(ctx, cfg, "first")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("turn 1: %s %s", res.Status, res.Error)
	}
	a.Stop()
	w.StartWorker(WorkerOptions{Name: "worker-b", HostQueue: "host-test", Store: storeB, Remote: remote})
	if n := countFiles(t, storeB); n != 0 {
		t.Fatalf("worker b's store holds %d blobs before its first call", n)
	}
	resp, err := threads.Reply(ctx, w.Client, thread, workflows.StartTurnRequest{Prompt: "second"})
	if err != nil {
		t.Fatal(err)
	}
	res = w.WaitTurn(ctx, thread, resp.TurnID)
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "answer of turn two" {
		t.Fatalf("turn 2: %s %q %s", res.Status, res.FinalMessage, res.Error)
	}
	if !w.Model.Server.LastRequestContains("output-of-turn-one") || !w.Model.Server.LastRequestContains("answer of turn one") {
		t.Fatal("turn 2's model request lacks turn 1's conversation")
	}
	if n := countFiles(t, storeB); n == 0 {
		t.Fatal("worker b read nothing through its own store")
	}
	// A client without the token reads nothing.
	if _, err := (&activities.HTTPRemote{BaseURL: srv.URL}).Get(ctx, res.Transcript); err == nil {
		t.Fatal("the blob server answered a client without the token")
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(d.Name()) == 32 {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
