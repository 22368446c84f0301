package appserver

import (
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// relayAgentApproval makes a sub-agent's turn wait for an approval and
// logs it in the root's turn, as the root thread relays it.
func (b *fakeBackend) relayAgentApproval(rootTurn string, a workflows.Approval) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[a.TurnID]
	if tu == nil {
		tu = &fakeTurn{threadID: a.ThreadID}
		b.turns[a.TurnID] = tu
	}
	tu.approvals = append(tu.approvals, a)
	b.emitLocked(rootTurn, workflows.Event{Type: workflows.EventAgentApprovalRequested, Approval: &a})
}

// A sub-agent's approval, relayed into the root's turn, is asked of the
// client following the root with the sub-agent's thread, turn and item
// (and no item/started: the item is the sub-agent's); the answer goes to
// the sub-agent's turn, once.
func TestSubAgentApprovalIsAskedOfTheRootsClient(t *testing.T) {
	b := newFakeBackend()
	c := startClient(t, b)
	c.initialize()
	_, rootTurn := startedTurn(t, c, map[string]any{})
	child, childTurn := "6c0bc474-7057-50c4-a0c5-c9408238ebe5", "6c0bc474-7057-50c4-a0c5-c9408238ebe5/turn-1"
	b.relayAgentApproval(rootTurn, workflows.Approval{ThreadID: child, TurnID: childTurn, ItemID: "item_0", Kind: "command",
		Command: "make deploy", Cwd: "/work", Reason: "untrusted policy", RequestedAt: time.Unix(1_800_000_050, 0)})
	got := c.until("item/commandExecution/requestApproval")
	for _, m := range got {
		if m["method"] == "item/started" {
			t.Fatalf("the sub-agent's item started in the root's turn: %v", methods(got))
		}
	}
	req := last(got)
	p := params(req)
	if p["threadId"] != child || p["turnId"] != childTurn || p["itemId"] != "item_0" || p["command"] != "make deploy" {
		t.Fatalf("approval request %v", p)
	}
	c.answer(req, map[string]any{"decision": "accept"})
	resolved := c.until("serverRequest/resolved")
	if rp := params(last(resolved)); rp["threadId"] != child {
		t.Fatalf("serverRequest/resolved %v", rp)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.decisions) != 1 || b.decisions[0] != (workflows.ApprovalDecision{ThreadID: child, ItemID: "item_0", Decision: workflows.DecisionApprove}) {
		t.Fatalf("decisions %+v", b.decisions)
	}
}
