package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/workflows"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func plainPlan(string) *fakeTurn { return completedTurn("done") }

// The tools as a client lists them are pinned: a schema change shows up
// in review (go test ./frontend/mcpserver -update rewrites the file).
func TestToolsGolden(t *testing.T) {
	h := newHarness(t, plainPlan)
	res, err := h.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("tools/list differs from %s (run with -update if intended):\n%s", path, got)
	}
	codex := res.Tools[0].InputSchema.(map[string]any)
	if codex["additionalProperties"] != false {
		t.Errorf("codex input schema additionalProperties = %v, want false", codex["additionalProperties"])
	}
}

func TestCodexRunsTurn(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn { return completedTurn("the answer") })
	var progress []float64
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: ToolCodex, Arguments: map[string]any{
		"prompt": "fix it", "cwd": "sub", "model": "m1", "sandbox": "read-only", "approval-policy": "never",
		"config":            map[string]any{"max_steps": 3, "model_providers.x": map[string]any{"base_url": "http://x"}},
		"base-instructions": "base", "developer-instructions": "dev", "compact-prompt": "compact",
	}}
	params.SetProgressToken("tok-1")
	res, err := h.client.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	r := structured(t, res)
	if r.ThreadID != "thread-1" || r.Content != "the answer" || text(res) != "the answer" {
		t.Errorf("result %+v text %q, want thread-1 / the answer", r, text(res))
	}
	args := h.backend.newArgs[0]
	if args.Cwd != filepath.Join(h.cwd, "sub") {
		t.Errorf("cwd %q, want it resolved against the server's cwd %q", args.Cwd, h.cwd)
	}
	if args.Model != "m1" || args.Sandbox != "read-only" || args.ApprovalPolicy != "never" || args.BaseInstructions != "base" ||
		args.DeveloperInstructions != "dev" || args.CompactPrompt != "compact" || args.Config["max_steps"] != float64(3) {
		t.Errorf("backend got %+v", args)
	}

	want := []string{"session_configured", "task_started", "exec_command_begin", "exec_command_end", "agent_message_delta", "agent_message", "token_count", "task_complete"}
	if got := h.eventTypes(); !slices.Equal(got, want) {
		t.Errorf("codex/event types %v, want %v", got, want)
	}
	evs := h.rec.notices("codex/event")
	for _, n := range evs {
		meta := n.Params["_meta"].(map[string]any)
		if meta["threadId"] != "thread-1" || meta["requestId"] == nil {
			t.Errorf("event _meta %v, want threadId thread-1 and the request id", meta)
		}
		if n.Params["id"] != "thread-1/turn-1" {
			t.Errorf("event id %v, want the turn id", n.Params["id"])
		}
	}
	if started := evs[1].Params["msg"].(map[string]any); started["turn_id"] != "thread-1/turn-1" {
		t.Errorf("task_started %v, want the turn's id", started)
	}
	first := evs[0].Params["msg"].(map[string]any)
	if first["session_id"] != "thread-1" || first["model"] != "fake-model" {
		t.Errorf("session_configured %v", first)
	}
	end := evs[3].Params["msg"].(map[string]any)
	if end["exit_code"] != float64(0) || end["aggregated_output"] != "hi\n" || end["call_id"] != "item_1" || end["cwd"] != "/w" {
		t.Errorf("exec_command_end %v", end)
	}
	last := evs[len(evs)-1].Params["msg"].(map[string]any)
	if last["last_agent_message"] != "the answer" {
		t.Errorf("task_complete %v", last)
	}
	for _, n := range h.rec.notices("notifications/progress") {
		if n.Params["progressToken"] != "tok-1" {
			t.Errorf("progress token %v", n.Params["progressToken"])
		}
		progress = append(progress, n.Params["progress"].(float64))
	}
	if len(progress) != len(want)-1 || !slices.IsSorted(progress) { // not for the delta
		t.Errorf("progress values %v, want %d increasing", progress, len(want)-1)
	}
}

func TestBadInput(t *testing.T) {
	h := newHarness(t, plainPlan)
	ctx := context.Background()
	started := h.call(ctx, ToolCodex, map[string]any{"prompt": "hi"})
	known := structured(t, started).ThreadID
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string // in the error text
		threadID   string // in structuredContent, when there is one
	}{
		{"unknown field", ToolCodex, map[string]any{"prompt": "x", "bogus-field": 1}, `bogus-field`, ""},
		{"snake_case field", ToolCodex, map[string]any{"prompt": "x", "approval_policy": "never"}, `approval_policy`, ""},
		{"missing prompt", ToolCodex, map[string]any{"model": "m"}, "prompt", ""},
		{"empty prompt", ToolCodex, map[string]any{"prompt": "  "}, "prompt is empty", ""},
		{"prompt not a string", ToolCodex, map[string]any{"prompt": 5}, "prompt", ""},
		{"bad sandbox", ToolCodex, map[string]any{"prompt": "x", "sandbox": "yolo"}, "sandbox", ""},
		{"bad approval policy", ToolCodex, map[string]any{"prompt": "x", "approval-policy": "always"}, "approval-policy", ""},
		{"config not an object", ToolCodex, map[string]any{"prompt": "x", "config": "model=o3"}, "config", ""},
		{"reply unknown field", ToolReply, map[string]any{"threadId": known, "prompt": "x", "sessionId": "s"}, "sessionId", ""},
		{"reply missing prompt", ToolReply, map[string]any{"threadId": known}, "prompt", ""},
		{"reply without thread", ToolReply, map[string]any{"prompt": "x"}, "threadId is required", ""},
		{"reply unknown thread", ToolReply, map[string]any{"threadId": "no-such-thread", "prompt": "x"}, "thread not found: no-such-thread", "no-such-thread"},
		{"reply ids disagree", ToolReply, map[string]any{"threadId": known, "conversationId": "other", "prompt": "x"}, "different threads", known},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call(ctx, tc.tool, tc.args)
			t.Logf("%s", text(res))
			if !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Fatalf("isError %v, text %q; want an error naming %q", res.IsError, text(res), tc.want)
			}
			if tc.threadID != "" {
				if got := structured(t, res).ThreadID; got != tc.threadID {
					t.Errorf("structured threadId %q, want %q", got, tc.threadID)
				}
			}
		})
	}
	if len(h.backend.newArgs) != 1 {
		t.Errorf("bad input reached the backend: %d threads started", len(h.backend.newArgs))
	}
	if _, err := h.client.CallTool(ctx, &mcp.CallToolParams{Name: "codex-nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "codex-nope") {
		t.Errorf("unknown tool: err %v, want a protocol error naming it", err)
	}
}

func TestFailedTurnIsErrorWithThreadID(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn {
		return &fakeTurn{
			events: []workflows.Event{{Type: workflows.EventTurnStarted}, {Type: workflows.EventTurnFailed, Error: "model refused: 401"}},
			result: workflows.TurnResult{Status: workflows.StatusFailed, Error: "model refused: 401"},
		}
	})
	res := h.call(context.Background(), ToolCodex, map[string]any{"prompt": "hi"})
	if !res.IsError || !strings.Contains(text(res), "model refused: 401") {
		t.Fatalf("isError %v text %q, want the failure reason", res.IsError, text(res))
	}
	if r := structured(t, res); r.ThreadID != "thread-1" || !strings.Contains(r.Content, "model refused") {
		t.Errorf("structured %+v, want the thread id and the reason", r)
	}
	want := []string{"session_configured", "task_started", "token_count", "error"}
	if got := h.eventTypes(); !slices.Equal(got, want) {
		t.Errorf("codex/event types %v, want %v", got, want)
	}
}

// codex-reply on a thread that still runs a turn waits for it (reporting
// its events), then runs the new prompt.
func TestReplyWaitsForRunningTurn(t *testing.T) {
	gated := true
	h := newHarness(t, func(p string) *fakeTurn {
		ft := completedTurn("answer to " + p)
		if gated {
			ft.gate, gated = make(chan struct{}), false
		}
		return ft
	})
	ctx := context.Background()
	first := make(chan *mcp.CallToolResult, 1)
	go func() { first <- h.call(ctx, ToolCodex, map[string]any{"prompt": "one"}) }()
	turn1 := <-h.backend.started

	second := make(chan *mcp.CallToolResult, 1)
	go func() {
		second <- h.call(ctx, ToolReply, map[string]any{"conversationId": "thread-1", "prompt": "two"})
	}()
	select {
	case id := <-h.backend.started:
		t.Fatalf("turn %s started while %s was running", id, turn1)
	case <-time.After(300 * time.Millisecond):
	}
	h.backend.release(turn1)
	r2 := <-second
	r1 := <-first
	if text(r1) != "answer to one" || text(r2) != "answer to two" || r2.IsError {
		t.Fatalf("results %q / %q (isError %v)", text(r1), text(r2), r2.IsError)
	}
	if structured(t, r2).ThreadID != "thread-1" {
		t.Errorf("reply threadId %q", structured(t, r2).ThreadID)
	}
	// The reply's own stream: turn 1's events (its end included), then
	// turn 2's from the start.
	var replyTurns []string
	for _, n := range h.rec.notices("codex/event") {
		m := n.Params["msg"].(map[string]any)
		if m["type"] == "task_complete" {
			replyTurns = append(replyTurns, n.Params["id"].(string))
		}
	}
	// Both calls' streams are recorded together and may interleave; what
	// matters is that turn 1 ended before turn 2 did.
	first1, last2 := slices.Index(replyTurns, "thread-1/turn-1"), -1
	for i, id := range replyTurns {
		if id == "thread-1/turn-2" {
			last2 = i
		}
	}
	if first1 < 0 || last2 < 0 || first1 > last2 {
		t.Errorf("task_complete order %v, want turn-1 to end before turn-2", replyTurns)
	}
	if got := h.backend.prompts; !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("prompts %v", got)
	}
}

// A client's notifications/cancelled interrupts the call's turn in the
// workflow; a closed connection does not.
func TestCancelInterruptsTurn(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn { ft := completedTurn("x"); ft.gate = make(chan struct{}); return ft })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.client.CallTool(ctx, &mcp.CallToolParams{Name: ToolCodex, Arguments: map[string]any{"prompt": "long"}})
		done <- err
	}()
	<-h.backend.started
	waitFor(t, func() bool { return slices.Contains(h.eventTypes(), "task_started") }, "the turn to start")
	cancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled call returned no error")
	}
	waitFor(t, func() bool { return slices.Equal(h.backend.interrupted(), []string{"thread-1"}) }, "the turn to be interrupted")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Calls on different threads run at the same time.
func TestConcurrentCalls(t *testing.T) {
	h := newHarness(t, func(p string) *fakeTurn { ft := completedTurn("re " + p); ft.gate = make(chan struct{}); return ft })
	ctx := context.Background()
	results := make(chan string, 2)
	for _, p := range []string{"a", "b"} {
		go func() { results <- text(h.call(ctx, ToolCodex, map[string]any{"prompt": p})) }()
	}
	turns := []string{<-h.backend.started, <-h.backend.started} // both started, neither ended
	for _, id := range turns {
		h.backend.release(id)
	}
	got := []string{<-results, <-results}
	slices.Sort(got)
	if !slices.Equal(got, []string{"re a", "re b"}) {
		t.Errorf("results %v", got)
	}
}
