package devtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// A server that streams its items only as response.output_item.done
// events (its response.completed has an empty output), as Codex's own
// test servers do: a 20-step turn of a reasoning model completes with
// every step, each request asks for the encrypted reasoning, and each
// request after the first gives back every earlier step's reasoning, with
// its encrypted content, in order, before that step's call.
func TestResponsesItemsOnlyWithEncryptedReasoning(t *testing.T) {
	const steps = 20
	var script []fakemodel.Step
	for i := 0; i < steps-1; i++ {
		script = append(script, fakemodel.Step{Reasoning: fmt.Sprintf("thinking about step %d", i), Shell: fmt.Sprintf("echo step-%d", i)})
	}
	script = append(script, fakemodel.Step{Reasoning: "all done", Text: "twenty steps done"})
	w := Start(t, &fakemodel.Script{ResponsesItemsOnly: true, Turns: []fakemodel.Turn{{Steps: script}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.Model = "gpt-5.1"
	cfg.Reasoning = harness.Reasoning{Effort: "high", Summary: "detailed"}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "take twenty steps")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "twenty steps done" || res.Steps != steps {
		t.Fatalf("turn %s after %d steps: %s %q", res.Status, res.Steps, res.Error, res.FinalMessage)
	}
	reqs := w.Model.Server.Requests()
	if len(reqs) != steps {
		t.Fatalf("%d model requests, want %d", len(reqs), steps)
	}
	for i, r := range reqs {
		var body struct {
			Include   []string `json:"include"`
			Reasoning struct {
				Effort  string `json:"effort"`
				Summary string `json:"summary"`
			} `json:"reasoning"`
			Input []map[string]any `json:"input"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Include) != 1 || body.Include[0] != "reasoning.encrypted_content" || body.Reasoning.Effort != "high" || body.Reasoning.Summary != "detailed" {
			t.Fatalf("request %d: include %v reasoning %+v", i, body.Include, body.Reasoning)
		}
		var replayed []string
		for j, it := range body.Input {
			if it["type"] != "reasoning" {
				continue
			}
			if _, has := it["id"]; has {
				t.Fatalf("request %d: reasoning item sent back with its id: %v", i, it)
			}
			if next := body.Input[j+1]; next["type"] != "function_call" {
				t.Fatalf("request %d: reasoning not followed by its call: %v", i, next)
			}
			replayed = append(replayed, it["encrypted_content"].(string))
		}
		if len(replayed) != i {
			t.Fatalf("request %d gave back %d reasoning items, want %d", i, len(replayed), i)
		}
		for k, enc := range replayed {
			if !strings.HasPrefix(enc, "fakemodel-encrypted-") || !strings.HasSuffix(enc, fmt.Sprintf("_t0_s%d", k)) {
				t.Fatalf("request %d: reasoning %d is %q", i, k, enc)
			}
		}
	}
}
