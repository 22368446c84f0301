package appserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/workflows"
)

const reviewAnswer = `{"findings":[{"title":"[P1] Loop reads past the end","body":"i <= len(xs) indexes one past the slice.\nIt panics on every call.","confidence_score":0.8,"priority":1,` +
	`"code_location":{"absolute_file_path":"/repo/main.go","line_range":{"start":3,"end":4}}},` +
	`{"title":"[P3] Misleading name","body":"total counts items.","confidence_score":0.4,"priority":3,"code_location":{"absolute_file_path":"/repo/main.go","line_range":{"start":2,"end":2}}}],` +
	`"overall_correctness":"patch is incorrect","overall_explanation":"The new loop reads past the end.","overall_confidence_score":0.7}`

const reviewText = "The new loop reads past the end.\n\nFull review comments:\n\n" +
	"- [P1] Loop reads past the end — /repo/main.go:3-4\n  i <= len(xs) indexes one past the slice.\n  It panics on every call.\n\n" +
	"- [P3] Misleading name — /repo/main.go:2-2\n  total counts items."

// A review is a turn with the review instructions as its mode and the
// target in its prompt; the client sees Codex's review items: entered,
// the commands, exited with the rendered findings, and the review as the
// agent's message; the model's raw JSON never shows.
func TestReviewStartRunsAReviewTurn(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")

	res := c.call("review/start", map[string]any{"threadId": id, "target": map[string]any{"type": "uncommittedChanges"}})
	turnID := res["turn"].(map[string]any)["id"].(string)
	if res["reviewThreadId"] != id || res["turn"].(map[string]any)["status"] != "inProgress" {
		t.Fatalf("review/start result %v", res)
	}
	req := b.requests[len(b.requests)-1]
	if req.Mode == nil || req.Mode.Name != "review" || req.Mode.Instructions != workflows.ReviewInstructions ||
		!strings.Contains(req.Mode.Instructions, "overall_correctness") {
		t.Fatalf("the turn's mode is not the review's: %+v", req.Mode)
	}
	if !strings.Contains(req.Prompt, "uncommitted changes") || !strings.Contains(req.Prompt, "git diff") {
		t.Fatalf("the prompt does not name the target: %q", req.Prompt)
	}
	exit := 0
	b.emit(turnID,
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_0", Type: workflows.ItemAgentMessage, Text: "Looking at the diff."}},
		workflows.Event{Type: workflows.EventItemStarted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "git diff", Cwd: "/repo", Status: workflows.StatusInProgress}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "git diff", Cwd: "/repo",
			Status: workflows.StatusCompleted, AggregatedOutput: "diff\n", ExitCode: &exit}},
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_2", Type: workflows.ItemAgentMessage, Text: reviewAnswer}},
	)
	b.end(turnID, workflows.StatusCompleted, "")
	got := c.until("turn/completed")
	var kinds []string
	for _, m := range got {
		k := m["method"].(string)
		if it, ok := params(m)["item"].(map[string]any); ok {
			k += " " + it["type"].(string)
		}
		kinds = append(kinds, k)
	}
	want := []string{"thread/status/changed", "turn/started",
		"item/started enteredReviewMode", "item/completed enteredReviewMode",
		"item/started userMessage", "item/completed userMessage",
		"item/started commandExecution", "item/commandExecution/outputDelta", "item/completed commandExecution",
		"item/started exitedReviewMode", "item/completed exitedReviewMode",
		"item/started agentMessage", "item/completed agentMessage",
		"thread/tokenUsage/updated", "thread/status/changed", "turn/completed"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("notifications:\n got %v\nwant %v\n%s", kinds, want, c.dump())
	}
	if r := params(got[2])["item"].(map[string]any)["review"]; r != "current changes" {
		t.Fatalf("enteredReviewMode review %q", r)
	}
	if r := params(got[10])["item"].(map[string]any)["review"]; r != reviewText {
		t.Fatalf("exitedReviewMode review:\n%s\nwant:\n%s", r, reviewText)
	}
	if m := params(got[12])["item"].(map[string]any)["text"]; m != reviewText {
		t.Fatalf("agent message %q", m)
	}

	// The thread takes turns again afterwards, shown as ordinary turns.
	rid := c.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "fix the P1"}}})
	r, _ := c.response(rid)
	next := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	b.emit(next, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_9", Type: workflows.ItemAgentMessage, Text: "done"}})
	b.end(next, workflows.StatusCompleted, "")
	for _, m := range c.until("turn/completed") {
		if it, ok := params(m)["item"].(map[string]any); ok && strings.Contains(it["type"].(string), "ReviewMode") {
			t.Fatalf("a review item in an ordinary turn: %v", m)
		}
	}
}

// Each target gives its own hint and prompt; bad targets and detached
// delivery get Codex's errors, and no turn starts.
func TestReviewTargets(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	id := c.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c.until("thread/started")
	for _, tc := range []struct {
		target     map[string]any
		hint, want string
	}{
		{map[string]any{"type": "baseBranch", "branch": "main"}, "changes against 'main'", "git merge-base HEAD main"},
		{map[string]any{"type": "commit", "sha": "3fb2a7040daf92fe", "title": "feature: count"}, "commit 3fb2a70: feature: count", "git show 3fb2a7040daf92fe"},
		{map[string]any{"type": "commit", "sha": "3fb2a70", "title": nil}, "commit 3fb2a70", "commit 3fb2a70;"},
		{map[string]any{"type": "custom", "instructions": "Look only at the SQL"}, "Look only at the SQL", "Look only at the SQL"},
	} {
		turnID := c.call("review/start", map[string]any{"threadId": id, "target": tc.target, "delivery": "inline"})["turn"].(map[string]any)["id"].(string)
		if p := b.requests[len(b.requests)-1].Prompt; !strings.Contains(p, tc.want) {
			t.Errorf("%v: prompt %q lacks %q", tc.target, p, tc.want)
		}
		b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "m", Type: workflows.ItemAgentMessage, Text: "All good, nothing to flag."}})
		b.end(turnID, workflows.StatusCompleted, "")
		got := c.until("turn/completed")
		var entered, exited string
		for _, m := range got {
			if it, ok := params(m)["item"].(map[string]any); ok && m["method"] == "item/completed" {
				switch it["type"] {
				case "enteredReviewMode":
					entered = it["review"].(string)
				case "exitedReviewMode":
					exited = it["review"].(string)
				}
			}
		}
		// A plain answer is the review as written.
		if entered != tc.hint || exited != "All good, nothing to flag." {
			t.Errorf("%v: entered %q exited %q", tc.target, entered, exited)
		}
	}
	n := len(b.requests)
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"threadId": id, "target": map[string]any{"type": "uncommittedChanges"}, "delivery": "detached"}, "unknown variant `detached`, expected `inline`"},
		{map[string]any{"threadId": id, "target": map[string]any{"type": "commit"}}, "missing field `sha`"},
		{map[string]any{"threadId": id, "target": map[string]any{"type": "custom", "instructions": "  "}}, "instructions must not be empty"},
		{map[string]any{"threadId": id, "target": map[string]any{"type": "baseBranch", "branch": ""}}, "branch must not be empty"},
		{map[string]any{"threadId": id, "target": map[string]any{"type": "everything"}}, "unknown variant `everything`"},
		{map[string]any{"threadId": id}, "missing field `target`"},
		{map[string]any{"threadId": "nope", "target": map[string]any{"type": "uncommittedChanges"}}, "nope"},
	} {
		wantError(t, c.callErr("review/start", tc.params), -32600, tc.want)
	}
	if len(b.requests) != n {
		t.Fatalf("a refused review started a turn")
	}
}

func TestRenderReview(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{reviewAnswer, reviewText},
		{"Here it is:\n```json\n" + `{"findings":[{"title":"[P2] Thing","body":"b","priority":2,"code_location":{"absolute_file_path":"/x/y.go","line_range":{"start":7,"end":9}}}],"overall_explanation":"Fenced."}` + "\n```",
			"Fenced.\n\nReview comment:\n\n- [P2] Thing — /x/y.go:7-9\n  b"},
		{`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Nothing wrong."}`, "Nothing wrong."},
		{`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":""}`, "No findings: patch is correct."},
		{"  Looks fine.  ", "Looks fine."},
		{`{"answer": 42}`, `{"answer": 42}`},
	} {
		if got := renderReview(tc.answer); got != tc.want {
			t.Errorf("renderReview(%q):\n got %q\nwant %q", tc.answer, got, tc.want)
		}
	}
}
