package mcpserver

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A sub-agent's approval, relayed into the root's turn, is asked by
// elicitation with the sub-agent's threadId, and the answer goes to the
// sub-agent (whose item id may repeat one of the root's).
func TestSubAgentApprovalIsElicited(t *testing.T) {
	a := &workflows.Approval{ThreadID: "sub-1", TurnID: "sub-1/turn-1", ItemID: "item_1", Kind: "command", Command: "make deploy", Cwd: "/w", Reason: "untrusted"}
	plan := func(string) *fakeTurn {
		return &fakeTurn{
			events: []workflows.Event{
				{Type: workflows.EventTurnStarted},
				{Type: workflows.EventAgentApprovalRequested, Approval: a},
				{Type: workflows.EventTurnCompleted},
			},
			result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: "ok"},
			gate:   make(chan struct{}), // the turn ends once decided
		}
	}
	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	h := newHarnessWithClient(t, plan, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	// The fake lets the root's turn end when the sub-agent is decided.
	h.backend.mu.Lock()
	h.backend.running["sub-1"] = workflows.TurnWorkflowID("thread-1", 1)
	h.backend.mu.Unlock()
	res := h.call(context.Background(), ToolCodex, map[string]any{"prompt": "delegate"})
	if res.IsError {
		t.Fatalf("call failed: %s", text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Message != "Allow running `make deploy` in `/w`? (untrusted)" {
		t.Fatalf("asked %+v", asked)
	}
	want := workflows.ApprovalDecision{ThreadID: "sub-1", ItemID: "item_1", Decision: workflows.DecisionApprove}
	if got := h.backend.decisions; len(got) != 1 || got[0] != want {
		t.Fatalf("decisions %+v, want %+v", got, want)
	}
}
