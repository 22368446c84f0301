package devtest

import (
	"context"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordLocalCommands: a turn's shell commands run as local activities
// (the default): more quick commands than one workflow task runs that
// way (the next is a regular activity), then one handed off after its
// first second.
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
