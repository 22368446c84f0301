package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
	"github.com/interpreter-dev/interpreter/workflows"
)

func (k *cluster) bucket(t *testing.T) *activities.BucketRemote {
	t.Helper()
	b, err := activities.OpenBucket(context.Background(), k.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func (k *cluster) putBlob(t *testing.T, data []byte) {
	t.Helper()
	if err := k.bucket(t).Put(context.Background(), activities.RefOf(data), data); err != nil {
		t.Fatal(err)
	}
}

func (k *cluster) hasBlob(t *testing.T, ref string) bool {
	t.Helper()
	ok, err := k.bucket(t).Has(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// bucketBlobs counts the blobs in the cluster's bucket.
func (k *cluster) bucketBlobs(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	b, err := activities.OpenBucket(ctx, k.store)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	n := 0
	if err := b.Refs(ctx, func(string, time.Time) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// Two workers of one host with homes of their own and the transcript
// store in a SeaweedFS bucket: a bad credential stops a worker as it
// starts, naming the bucket; a worker SIGKILLed mid-turn hands the turn
// to the other, which reads the conversation from the bucket; with the
// S3 server stopped a turn waits (the model asked once) and goes on when
// it is back; deleting the thread removes its blobs from the bucket.
func TestClusterObjectStore(t *testing.T) {
	k := newCluster(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "first cell", Steps: []fakemodel.Step{{Text: "first done"}}},
		{Match: "kill cell", Steps: []fakemodel.Step{{Shell: "touch started.txt; sleep 60"}, {Text: "taken over"}}},
		{Match: "touch stop-started-0.txt", Steps: []fakemodel.Step{{Shell: "touch stop-started-0.txt; sleep 60"}, {Text: "not reached"}}},
		{Match: "touch stop-started-1.txt", Steps: []fakemodel.Step{{Shell: "touch stop-started-1.txt; sleep 60"}, {Text: "not reached"}}},
		{Match: "outage cell", Steps: []fakemodel.Step{{Text: "outage done"}}},
	}})

	bad := k.inEnv(t.TempDir(), []string{"AWS_SECRET_ACCESS_KEY=not-the-secret"},
		append([]string{"worker", "--host-queue", "host-a", "--build-id", "b1"}, k.config()...)...)
	if code := bad.Wait(90 * time.Second); code == 0 || !containsAll(bad.Stderr.String(), "store s3://agents/cluster/", "access denied") {
		t.Fatalf("a worker with a bad credential: exit %d\n%s%s", code, bad.Stdout, bad.Stderr)
	}
	t.Logf("bad credential: %s", strings.TrimSpace(bad.Stderr.String()))

	wa := k.worker("host-a", "b1")
	// The thread keeps the config it started with: its commands' heartbeat
	// is set here, short, as a cluster sets it (see the takeover below).
	first := k.exec("host-a", "-c", "temporal.command_heartbeat=20s", "--json", "first cell")
	if code := first.Wait(90 * time.Second); code != 0 || !strings.Contains(first.Stdout.String(), "first done") {
		t.Fatalf("first cell: exit %d\n%s%s", code, first.Stdout, first.Stderr)
	}
	thread := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, first.Stdout.String()))

	// Worker a runs the turn's command; b, with an empty home, joins the
	// host; a is killed. b cannot see a's lock files (another home, as on
	// another machine): the command's heartbeat timeout finds it lost.
	kill := k.exec("host-a", "--json", "resume", thread, "kill cell")
	e2etest.WaitUntil(t, func() bool {
		_, err := os.Stat(filepath.Join(k.Work, "started.txt"))
		return err == nil
	}, 60*time.Second, "the command on worker a", func() string { return kill.Stdout.String() + kill.Stderr.String() })
	wb := k.worker("host-a", "b1")
	wa.Kill()
	if code := kill.Wait(3 * time.Minute); code != 0 || !strings.Contains(kill.Stdout.String(), "taken over") {
		t.Fatalf("kill cell: exit %d\n%s%s\nworker b:\n%s", code, kill.Stdout, kill.Stderr, wb.Stderr)
	}
	if !k.Model.Server.LastRequestContains("first done") {
		t.Fatal("worker b's model call lacks the first turn (the transcript did not come from the bucket)")
	}

	// Two workers on the host: an interrupted turn's command is stopped
	// by the one that runs it, wherever the host queue sent the stop.
	// (The host queue gives the first stop to either worker: two rounds.)
	k.worker("host-a", "b1")
	for round, turn := range []string{"turn-3", "turn-4"} {
		marker := fmt.Sprintf("stop-started-%d.txt", round)
		stop := k.exec("host-a", "--json", "resume", thread, fmt.Sprintf("stop cell: touch %s", marker))
		e2etest.WaitUntil(t, func() bool {
			_, err := os.Stat(filepath.Join(k.Work, marker))
			return err == nil
		}, 60*time.Second, "the command to stop", func() string { return stop.Stdout.String() + stop.Stderr.String() })
		if err := k.c.SignalWorkflow(context.Background(), thread, "", workflows.SignalInterrupt, nil); err != nil {
			t.Fatal(err)
		}
		stop.Wait(90 * time.Second)
		if !k.stoppedByItsWorker(t, thread+"/"+turn) {
			t.Fatalf("no StopCommand reached the worker running the command:\n%s%s", stop.Stdout, stop.Stderr)
		}
	}

	// The S3 server stopped: the answer is kept and its write retried
	// until the server is back.
	k.weed.stop()
	out := k.exec("host-a", "-c", "store.max_retries=20", "resume", thread, "outage cell")
	out.WaitFor(func() bool { return strings.Contains(out.Stderr.String(), "retrying the store write") }, 90*time.Second, "a store retry")
	k.weed.start()
	if code := out.Wait(3 * time.Minute); code != 0 || !strings.Contains(out.Stdout.String(), "outage done") {
		t.Fatalf("outage cell: exit %d\n%s%s", code, out.Stdout, out.Stderr)
	}
	if n := len(k.Model.Server.RequestsContaining("outage cell")); n != 1 {
		t.Errorf("the model was asked %d times for the turn the store held up, want once", n)
	}
	t.Logf("outage: %s", firstLine(out.Stderr.String(), "retrying the store write"))

	// store gc: a blob no thread reaches goes, the thread's stay.
	orphan := []byte("a blob of a thread long gone")
	k.putBlob(t, orphan)
	gc := k.in(t.TempDir(), append([]string{"store", "gc", "--older-than", "0s"}, k.config()...)...)
	if code := gc.Wait(90 * time.Second); code != 0 || !strings.Contains(gc.Stdout.String(), "unreferenced blobs") {
		t.Fatalf("store gc: exit %d\n%s%s", code, gc.Stdout, gc.Stderr)
	}
	t.Logf("gc: %s", strings.TrimSpace(gc.Stdout.String()))
	if k.hasBlob(t, activities.RefOf(orphan)) {
		t.Fatal("store gc kept a blob no thread references")
	}

	before := k.bucketBlobs(t)
	del := k.in(t.TempDir(), append([]string{"threads", "delete", thread}, k.config()...)...)
	if code := del.Wait(90 * time.Second); code != 0 {
		t.Fatalf("threads delete: exit %d\n%s%s", code, del.Stdout, del.Stderr)
	}
	after := k.bucketBlobs(t)
	t.Logf("delete: %s; bucket %d -> %d blobs", strings.TrimSpace(del.Stdout.String()), before, after)
	if after >= before || after > 1 {
		t.Fatalf("the bucket kept the deleted thread's blobs: %d -> %d\n%s%s", before, after, del.Stdout, del.Stderr)
	}
}

func firstLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// stoppedByItsWorker tells whether a StopCommand activity of the turn
// completed with the command stopped (the first, on the host queue, or
// the one sent on to the worker's own queue), logging the path taken.
func (k *cluster) stoppedByItsWorker(t *testing.T, turnID string) bool {
	t.Helper()
	it := k.c.GetWorkflowHistory(context.Background(), turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	stops, forwarded, stopped := 0, false, false
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "StopCommand" {
			stops++
			forwarded = forwarded || strings.Contains(a.GetTaskQueue().GetName(), "-sessions-")
		}
		if c := ev.GetActivityTaskCompletedEventAttributes(); c != nil {
			b, _ := proto.Marshal(c)
			stopped = stopped || bytes.Contains(b, []byte(`"stopped":true`))
		}
	}
	t.Logf("stop: %d StopCommand activities, sent on to the worker's queue: %v, stopped: %v", stops, forwarded, stopped)
	return stopped
}
