package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/interpreter-dev/interpreter/workflows"
)

// elicitPrefix marks the ids of the elicitation requests this server
// sends, so their responses are taken off the connection before the SDK
// sees them (it would not know the ids).
const elicitPrefix = "interpreter-elicit-"

var elicitSeq atomic.Int64

// elicit sends elicitation/create and waits for the client's raw result:
// raw, because clients written for Codex answer {decision: ...}, which the
// SDK's ElicitResult would drop.
func (c *codexConn) elicit(ctx context.Context, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding elicitation: %w", err)
	}
	key := fmt.Sprintf("%s%d", elicitPrefix, elicitSeq.Add(1))
	id, err := jsonrpc.MakeID(key)
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.elicits == nil {
		c.elicits = map[string]chan *jsonrpc.Response{}
	}
	c.elicits[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.elicits, key)
		c.mu.Unlock()
	}()
	if err := c.inner.Write(ctx, &jsonrpc.Request{ID: id, Method: "elicitation/create", Params: raw}); err != nil {
		return nil, fmt.Errorf("sending elicitation: %w", err)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case resp := <-ch:
		if resp.Error != nil {
			return nil, fmt.Errorf("client answered the elicitation with an error: %w", resp.Error)
		}
		return resp.Result, nil
	}
}

// takeElicitResponse hands a response to the elicitation waiting for it;
// it reports false for responses that are not to our own requests.
func (c *codexConn) takeElicitResponse(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return false
	}
	key, ok := resp.ID.Raw().(string)
	if !ok || !strings.HasPrefix(key, elicitPrefix) {
		return false
	}
	c.mu.Lock()
	ch := c.elicits[key]
	c.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
	return true
}

// decisionOf reads both answers found in the wild: Codex's
// {decision: approved | approved_for_session | denied | abort} and the
// MCP-standard {action: accept | decline | cancel}. Anything else denies.
func decisionOf(raw json.RawMessage) string {
	var r struct {
		Decision string `json:"decision"`
		Action   string `json:"action"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return workflows.DecisionDeny
	}
	switch r.Decision {
	case "approved":
		return workflows.DecisionApprove
	case "approved_for_session":
		return workflows.DecisionApproveForSession
	case "abort":
		return workflows.DecisionAbort
	case "":
	default:
		return workflows.DecisionDeny
	}
	if r.Action == "accept" {
		return workflows.DecisionApprove
	}
	return workflows.DecisionDeny
}

// approvalParams are elicitation/create's params for a pending approval:
// the MCP fields plus the extra ones Codex's clients read.
func approvalParams(a *workflows.Approval, callID string) approvalElicitation {
	p := approvalElicitation{ThreadID: a.ThreadID, CodexCallID: callID, CodexEventID: a.ItemID,
		RequestedSchema: requestedSchema{Type: "object"}}
	if a.Kind == "patch" {
		diff, reason := a.Diff, a.Reason
		p.Message = "Allow these file changes?\n" + a.Diff
		p.CodexElicitation = "patch-approval"
		p.CodexChanges, p.CodexReason = &diff, &reason
		return p
	}
	p.Message = fmt.Sprintf("Allow running `%s` in `%s`?", a.Command, a.Cwd)
	if a.Reason != "" {
		p.Message += " (" + a.Reason + ")"
	}
	command, cwd := a.Command, a.Cwd
	p.CodexElicitation = "exec-approval"
	p.CodexCommand, p.CodexCwd = &command, &cwd
	return p
}

// askApproval asks the client and delivers the decision to the workflow.
// A client without the elicitation capability gets no question: the
// approval is declined (fail closed) and the model is told.
func (c *call) askApproval(ctx context.Context, a *workflows.Approval) {
	decision := workflows.DecisionDeny
	if caps := c.session.InitializeParams(); caps != nil && caps.Capabilities != nil && caps.Capabilities.Elicitation != nil {
		raw, err := c.h.conn.elicit(ctx, approvalParams(a, a.ItemID))
		if err != nil {
			if ctx.Err() != nil {
				return // the next client is asked again: the approval stays pending
			}
			c.h.s.logger.Warn("asking for approval", "thread", a.ThreadID, "item", a.ItemID, "error", err)
		} else {
			decision = decisionOf(raw)
		}
	}
	if ctx.Err() != nil {
		return // answered elsewhere meanwhile, or the turn ended
	}
	if err := c.h.s.backend.Decide(ctx, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: decision}); err != nil && ctx.Err() == nil {
		c.h.s.logger.Warn("delivering an approval decision", "thread", a.ThreadID, "item", a.ItemID, "error", err)
	}
}

// asks are the approval questions of one followed turn, by item id.
type asks struct {
	ctx     context.Context
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	wg      sync.WaitGroup
}

func newAsks(ctx context.Context) *asks {
	return &asks{ctx: ctx, cancels: map[string]context.CancelFunc{}}
}

func (a *asks) start(item string, ask func(context.Context)) {
	ctx, cancel := context.WithCancel(a.ctx)
	a.mu.Lock()
	if old := a.cancels[item]; old != nil {
		old()
	}
	a.cancels[item] = cancel
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ask(ctx)
	}()
}

func (a *asks) cancel(item string) {
	a.mu.Lock()
	if c := a.cancels[item]; c != nil {
		c()
		delete(a.cancels, item)
	}
	a.mu.Unlock()
}

// stop ends the questions still open (the turn is over) and waits for them.
func (a *asks) stop() {
	a.mu.Lock()
	for _, c := range a.cancels {
		c()
	}
	a.mu.Unlock()
	a.wg.Wait()
}
