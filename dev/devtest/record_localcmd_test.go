package devtest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordLocalCommands: a turn's shell commands run as local activities
// (the default): more quick commands than one workflow task runs that
// way (the next is a regular activity), then one handed off. Its files
// (localcmd-*) were recorded at version 2, when the hand-off came after
// a second; a run now records version 3.
func recordLocalCommands(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "LOCAL", Steps: []fakemodel.Step{
		{Shell: "echo quick", Repeat: 10},
		{Shell: "sleep 1.5; echo slow"},
		{Text: "local done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Commands = workflows.CommandsLocal
	id, res := w.RunTurn(ctx, cfg, "LOCAL quick and slow commands")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "local done" {
		t.Fatalf("turn: %+v", res)
	}
	w.save(ctx, "localcmd", id)
}

// recordLocalCommandsTimed: version 3 of local-commands. Commands of
// about 130 ms each run locally until the workflow task has spent half a
// second on them (the fifth then is a regular activity, though the task
// could run eight), and one still running after 250 ms is handed off.
func recordLocalCommandsTimed(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "TIMED", Steps: []fakemodel.Step{
		{Shell: "sleep 0.12; echo timed", Repeat: 6},
		{Shell: "echo partial; sleep 0.8; echo slow"},
		{Text: "timed done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Commands = workflows.CommandsLocal
	id, res := w.RunTurn(ctx, cfg, "TIMED commands")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "timed done" {
		t.Fatalf("turn: %+v", res)
	}
	// The turn's commands in order: L a local activity, A an Exec
	// activity, R an Exec activity resuming a handed-off command. Before
	// the first A come fewer local commands than the count bound allows
	// (the time bound ended the task); one command is handed off.
	s := commandShape(t, w, id+"/turn-1")
	// The shape depends on how long the commands take, so it is what a
	// recording must have; a loaded machine (CI) hands off more of them,
	// and a task may end at a hand-off before its time bound.
	if !strings.HasPrefix(s, "L") {
		t.Fatalf("commands %s (L local, A activity, R resumed): want the first one local", s)
	}
	if *record && (strings.Count(s, "R") != 1 || !strings.Contains(s, "LR") || strings.Index(s, "A") < 1 || strings.Index(s, "A") >= 8) {
		t.Fatalf("commands %s (L local, A activity, R resumed): want a few L before the first A, one L handed off to an R (record on a quieter machine)", s)
	}
	w.save(ctx, "localcmd-timed", id)
}

// recordLocalCommandsShown: version 4 of local-commands. The first
// step's command, after a 200 ms model call, runs as a regular activity
// (the turn's first item reaches followers at once); later ones run
// locally until the task's model calls and commands have taken half a
// second, and the next is a regular activity again.
func recordLocalCommandsShown(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "SHOWN", Steps: []fakemodel.Step{
		{Shell: "echo shown", Repeat: 4, DelayMs: 200},
		{Text: "shown done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Commands = workflows.CommandsLocal
	id, res := w.RunTurn(ctx, cfg, "SHOWN commands")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "shown done" {
		t.Fatalf("turn: %+v", res)
	}
	// L a local command, A an Exec activity, R one taking over a local
	// command that outran its 250 ms (a loaded machine). The first is an
	// activity, and the later ones run locally again. (Whether a later
	// one is an activity depends on the machine's speed: the model
	// calls' 600 ms against the task's half second.)
	shape := commandShape(t, w, id+"/turn-1")
	if s := strings.ReplaceAll(shape, "R", ""); len(s) != 4 || s[0] != 'A' || !strings.Contains(s[1:], "L") {
		t.Fatalf("the commands ran as %q, want an A first, then local ones", shape)
	}
	w.save(ctx, "localcmd-shown", id)
}

// commandShape is a turn's shell commands in order: L a local activity,
// A an Exec activity, R an Exec activity taking over a handed-off one.
func commandShape(t *testing.T, w *World, turnID string) string {
	t.Helper()
	var shape strings.Builder
	for _, e := range historyOf(t, w, turnID) {
		if e.GetMarkerRecordedEventAttributes() != nil && slices.Contains(localActivities(t, []*historypb.HistoryEvent{e}), "ExecHere") {
			shape.WriteString("L")
		}
		a := e.GetActivityTaskScheduledEventAttributes()
		if a == nil || a.GetActivityType().GetName() != workflows.ActivityExec {
			continue
		}
		var in activities.ExecInput
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in); err != nil {
			t.Fatal(err)
		}
		if in.Resume != "" {
			shape.WriteString("R")
		} else {
			shape.WriteString("A")
		}
	}
	return shape.String()
}
