package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// compactScript answers the compaction request (its last user message is
// the configured compact prompt, which holds COMPACT-NOW) with a summary.
// After a compaction in the middle of a turn the last user message is the
// summary, so the summary names the turn that answers next (resume-here).
func compactScript() *fakemodel.Script {
	return &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "COMPACT-NOW", Steps: []fakemodel.Step{{Text: "SUMMARY-XYZ: alpha ran a command; resume-here"}}},
		{Match: "resume-here", Steps: []fakemodel.Step{{Text: "went on from the summary"}}},
		{Match: "alpha", Steps: []fakemodel.Step{{Shell: "echo turn-one-output"}, {Text: "first done"}}},
		{Match: "beta", Steps: []fakemodel.Step{{Text: "second done"}}},
		{Match: "gamma", Steps: []fakemodel.Step{{Shell: "echo gamma-output"}, {Text: "gamma done"}}},
		{Match: "Memory extraction:", Steps: []fakemodel.Step{{Text: "SUMMARY: a test\n- The user tests everything"}}},
	}}
}

// On demand (thread.compact): the model summarizes the thread with the
// configured prompt, and the next turn sends the recent user messages and
// the summary instead of the old transcript, so the thread still knows
// about its earlier work.
func TestCompactThreadOnDemand(t *testing.T) {
	w := Start(t, compactScript())
	w.StartWorker(WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.CompactPrompt = "COMPACT-NOW: summarize the conversation"
	id, res := w.RunTurn(ctx, cfg, "first prompt alpha")
	if res.Status != workflows.StatusCompleted {
		t.Fatalf("first turn: %+v", res)
	}
	resp, err := threads.Compact(ctx, w.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Summary, "SUMMARY-XYZ") || resp.EntriesAfter != 2 || resp.EntriesBefore < 4 || resp.TokensBefore == 0 {
		t.Fatalf("compaction: %+v", resp)
	}
	asked := w.Model.Server.RequestsContaining("COMPACT-NOW")
	if len(asked) != 1 || !strings.Contains(string(asked[0].Body), "turn-one-output") {
		t.Fatalf("the compaction request did not carry the conversation and the configured prompt: %d requests", len(asked))
	}

	turn, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "second prompt beta"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, turn.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "second done" {
		t.Fatalf("second turn: %+v", res)
	}
	last, _ := w.Model.Server.LastRequest()
	body := string(last.Body)
	for _, want := range []string{"first prompt alpha", "SUMMARY-XYZ", "Earlier parts of this conversation were compacted", "second prompt beta"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model call after compaction lacks %q", want)
		}
	}
	for _, gone := range []string{"turn-one-output", "first done", "COMPACT-NOW"} {
		if strings.Contains(body, gone) {
			t.Errorf("the model call after compaction still carries %q", gone)
		}
	}
	v, err := threads.Read(ctx, w.Client, id)
	if err != nil || v.ContextTokens == 0 {
		t.Fatalf("thread view: %+v %v", v, err)
	}
}

// Automatically: a turn whose conversation passes the limit is compacted
// before its next model call and goes on from the summary.
func TestCompactionInTheMiddleOfATurn(t *testing.T) {
	w := Start(t, compactScript())
	w.StartWorker(WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.LocalModelCalls = true
	cfg.CompactPrompt = "COMPACT-NOW: summarize the conversation"
	cfg.ContextWindow = 1_000_000
	cfg.AutoCompactTokenLimit = 200 // every request is larger: the fake model counts body bytes / 4
	id, res := w.RunTurn(ctx, cfg, "third prompt gamma")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "went on from the summary" {
		t.Fatalf("turn: %+v", res)
	}
	if n := len(w.Model.Server.RequestsContaining("COMPACT-NOW")); n != 1 {
		t.Fatalf("%d compaction requests, want 1", n)
	}
	last, _ := w.Model.Server.LastRequest()
	if body := string(last.Body); !strings.Contains(body, "SUMMARY-XYZ") || strings.Contains(body, "gamma-output") ||
		!strings.Contains(body, "third prompt gamma") {
		t.Fatalf("the call after compaction: %s", body)
	}
	page, err := threads.Events(ctx, w.Client, res.TurnID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var compactions []workflows.Item
	for _, e := range page.Events {
		if e.Item != nil && e.Item.Type == workflows.ItemContextCompaction {
			compactions = append(compactions, *e.Item)
		}
	}
	if len(compactions) != 1 || compactions[0].Status != workflows.StatusCompleted || !strings.Contains(compactions[0].Text, "SUMMARY-XYZ") {
		t.Fatalf("compaction items: %+v", compactions)
	}
	_ = id
}

// A compaction the model cannot answer leaves the thread as it was, with a
// clear error.
func TestCompactionFailureLeavesThreadUnchanged(t *testing.T) {
	script := compactScript()
	script.Turns[0].Steps = []fakemodel.Step{{FailStatus: 400}}
	w := Start(t, script)
	w.StartWorker(WorkerOptions{Name: "w"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.CompactPrompt = "COMPACT-NOW: summarize"
	id, res := w.RunTurn(ctx, cfg, "first prompt alpha")
	_, err := threads.Compact(ctx, w.Client, id)
	if err == nil || !strings.Contains(err.Error(), "the thread is unchanged") || !strings.Contains(err.Error(), "400") {
		t.Fatalf("compaction error: %v", err)
	}
	after, _ := threads.Read(ctx, w.Client, id)
	if after.Transcript != res.Transcript || after.Transcript == "" {
		t.Fatalf("a failed compaction changed the transcript")
	}
}
