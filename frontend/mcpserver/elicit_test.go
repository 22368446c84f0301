package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/workflows"
)

func approvalTurn() *fakeTurn {
	a := &workflows.Approval{ThreadID: "thread-1", ItemID: "item_1", Kind: "command", Command: "rm -rf build", Cwd: "/w", Reason: "not known to be safe"}
	return &fakeTurn{
		events: []workflows.Event{
			{Type: workflows.EventTurnStarted},
			{Type: workflows.EventApprovalRequested, Approval: a,
				Item: &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: a.Command, Status: workflows.StatusAwaitingApproval}},
			{Type: workflows.EventTurnCompleted},
		},
		result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: "ok"},
		gate:   make(chan struct{}), // the turn ends once decided
	}
}

// A pending approval is asked with elicitation/create (message plus
// Codex's extra params) and the client's answer goes to the workflow.
func TestApprovalIsAskedByElicitation(t *testing.T) {
	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	h := newHarnessWithClient(t, func(string) *fakeTurn { return approvalTurn() }, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	res := h.call(context.Background(), ToolCodex, map[string]any{"prompt": "clean up"})
	if res.IsError {
		t.Fatalf("call failed: %s", text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, "Allow running `rm -rf build` in `/w`?") {
		t.Fatalf("asked %+v", asked)
	}
	want := []workflows.ApprovalDecision{{ThreadID: "thread-1", ItemID: "item_1", Decision: workflows.DecisionApprove}}
	if got := h.backend.decisions; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("decisions %+v, want %+v", got, want)
	}
}

// A client that cannot answer elicitations gets no question: the approval
// is declined (fail closed).
func TestApprovalWithoutElicitationCapabilityIsDeclined(t *testing.T) {
	h := newHarness(t, func(string) *fakeTurn { return approvalTurn() })
	h.call(context.Background(), ToolCodex, map[string]any{"prompt": "clean up"})
	if got := h.backend.decisions; len(got) != 1 || got[0].Decision != workflows.DecisionDeny {
		t.Fatalf("decisions %+v, want one deny", got)
	}
}

func TestDecisionOfBothDialects(t *testing.T) {
	cases := map[string]string{
		`{"decision":"approved"}`:             workflows.DecisionApprove,
		`{"decision":"approved_for_session"}`: workflows.DecisionApproveForSession,
		`{"decision":"denied"}`:               workflows.DecisionDeny,
		`{"decision":"abort"}`:                workflows.DecisionAbort,
		`{"action":"accept"}`:                 workflows.DecisionApprove,
		`{"action":"decline"}`:                workflows.DecisionDeny,
		`{"action":"cancel"}`:                 workflows.DecisionDeny,
		`{"decision":"maybe"}`:                workflows.DecisionDeny,
		`{}`:                                  workflows.DecisionDeny,
		`not json`:                            workflows.DecisionDeny,
	}
	for raw, want := range cases {
		if got := decisionOf(json.RawMessage(raw)); got != want {
			t.Errorf("decisionOf(%s) = %s, want %s", raw, got, want)
		}
	}
}
