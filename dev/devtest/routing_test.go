package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/workflows"
)

// activityWorkers maps activity type -> identities of the workers that
// ran it in a turn's history.
func activityWorkers(t *testing.T, w *World, turnID string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	it := w.Client.GetWorkflowHistory(ctx, turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	types := map[int64]string{}
	out := map[string][]string{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			types[ev.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil {
			typ := types[a.GetScheduledEventId()]
			out[typ] = append(out[typ], a.GetIdentity())
		}
	}
	return out
}

// Two hosts, one server: each thread's commands run on the worker of its
// workspace host, while model calls go to the shared queue.
func TestToolsRunOnTheThreadsWorkspaceHost(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo ran-on-$HOST_NAME"}, {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "worker-a", HostQueue: "host-a", CommandEnv: map[string]string{"HOST_NAME": "a"}})
	w.StartWorker(WorkerOptions{Name: "worker-b", HostQueue: "host-b", ToolsOnly: true, CommandEnv: map[string]string{"HOST_NAME": "b"}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, host := range []string{"a", "b"} {
		cfg := w.Config("host-" + host)
		// Model calls as regular activities, to see where they are
		// dispatched (as local activities they run where the turn does).
		cfg.ModelCalls = workflows.ModelCallsActivity
		_, res := w.RunTurn(ctx, cfg, "where do you run?")
		if res.Status != "completed" {
			t.Fatalf("host %s: turn %s: %s", host, res.Status, res.Error)
		}
		if !w.Model.Server.LastRequestContains("ran-on-" + host) {
			t.Fatalf("host %s: the command's output did not come from worker %s", host, host)
		}
		ran := activityWorkers(t, w, res.TurnID)
		// Host a's worker runs the turn too: the command runs in the
		// turn's workflow task (temporal.local_commands), no activity.
		// Host b's runs as an activity there. A host worker's identity
		// ends in the queue its stops reach (activities: stopqueue.go);
		// the name comes before it.
		got := ran["Exec"]
		switch {
		case host == "a" && len(got) != 0:
			t.Fatalf("host a: Exec ran as an activity on %v, want it in the turn's workflow task", got)
		case host == "b" && (len(got) != 1 || strings.Split(got[0], activities.StopQueueTag)[0] != "worker-b"):
			t.Fatalf("host b: Exec ran on %v", got)
		}
		for _, id := range ran["CallModel"] {
			if id != "worker-a" {
				t.Fatalf("host %s: model call ran on %s, want the shared worker-a", host, id)
			}
		}
		if len(ran["CallModel"]) != 2 {
			t.Fatalf("host %s: %d model calls, want 2", host, len(ran["CallModel"]))
		}
	}

}
