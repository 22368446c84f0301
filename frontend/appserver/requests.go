package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Requests of ours to the client: approvals and dynamic tool calls. What a
// turn waits for lives in the turn workflow (pending approvals, pending
// dynamic calls); this server only asks and delivers the answers. So a
// server that dies while a question is open loses nothing: the next one
// asks again after thread/resume, and a question settled meanwhile (by
// another client, by a timeout) is never asked again.

// clientAnswer is a client's response to one of our requests.
type clientAnswer struct {
	result json.RawMessage
	err    json.RawMessage
}

type serverRequest struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// ask is one open question about a turn's item.
type ask struct {
	cancel context.CancelFunc
}

// send writes a request to the client; its answer comes on the channel.
func (c *conn) send(method string, params any) (int64, chan clientAnswer, error) {
	c.mu.Lock()
	id := c.reqSeq
	c.reqSeq++
	ch := make(chan clientAnswer, 1)
	c.waiting[strconv.FormatInt(id, 10)] = ch
	c.mu.Unlock()
	if err := c.out.write(serverRequest{ID: id, Method: method, Params: params}); err != nil {
		c.forget(id)
		return id, nil, fmt.Errorf("writing %s: %w", method, err)
	}
	return id, ch, nil
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.waiting, strconv.FormatInt(id, 10))
	c.mu.Unlock()
}

// await waits for the answer to request id: its result, or the client's
// error as an error.
func (c *conn) await(ctx context.Context, id int64, ch chan clientAnswer) (json.RawMessage, error) {
	defer c.forget(id)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case a := <-ch:
		if isSet(a.err) {
			var e struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(a.err, &e) != nil || e.Message == "" {
				return nil, fmt.Errorf("the client answered with an error: %s", a.err)
			}
			return nil, fmt.Errorf("the client answered with error %d: %s", e.Code, e.Message)
		}
		return a.result, nil
	}
}

// startAsk runs fn for a question about a turn's item unless this
// connection asked it already; settle ends it early.
func (c *conn) startAsk(key string, fn func(ctx context.Context)) {
	c.mu.Lock()
	if _, asked := c.asks[key]; asked {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.asks[key] = &ask{cancel: cancel}
	c.mu.Unlock()
	c.background(func() {
		defer cancel()
		fn(ctx)
	})
}

// settle ends the question about an item that was resolved without this
// connection's answer (another client, a timeout, the turn ended).
func (c *conn) settle(key string) {
	c.mu.Lock()
	a := c.asks[key]
	c.mu.Unlock()
	if a != nil {
		a.cancel()
	}
}

func askKey(turnID, itemID string) string { return turnID + "#" + itemID }

func (c *conn) notifyResolved(threadID string, id int64) {
	c.notify(notice(protocol.ServerRequestResolved{ThreadID: threadID, RequestID: id}))
}

// askApproval asks the client about a pending approval and delivers its
// decision. An error answer or an answer this server cannot read declines
// (fail closed); the model is told the command was not run.
func (c *conn) askApproval(a workflows.Approval) {
	c.startAsk(askKey(a.TurnID, a.ItemID), func(ctx context.Context) {
		method, params := c.approvalRequest(a)
		id, ch, err := c.send(method, params)
		if err != nil {
			c.logf("asking for approval of %s: %v", a.ItemID, err)
			return
		}
		res, err := c.await(ctx, id, ch)
		if ctx.Err() != nil {
			if c.ctx.Err() == nil {
				c.notifyResolved(a.ThreadID, id)
			}
			return // settled elsewhere, or this server is closing: the next one asks again
		}
		decision := workflows.DecisionDeny
		if err != nil {
			c.logf("approval of %s declined: %v", a.ItemID, err)
		} else {
			decision = approvalDecision(res)
		}
		dctx, cancel := c.requestContext()
		defer cancel()
		if err := c.s.backend.Decide(dctx, a.TurnID, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: decision}); err != nil {
			c.logf("delivering the decision on %s: %v", a.ItemID, err)
		}
		c.notifyResolved(a.ThreadID, id)
	})
}

// approvalRequest is the server request that asks about an approval.
func (c *conn) approvalRequest(a workflows.Approval) (string, any) {
	started := a.RequestedAt.UnixMilli()
	if a.RequestedAt.IsZero() {
		started = c.nowMs()
	}
	if a.Kind == "patch" {
		return protocol.MethodFileChangeApproval, protocol.FileChangeRequestApprovalParams{ThreadID: a.ThreadID, TurnID: a.TurnID,
			ItemID: a.ItemID, StartedAtMs: started, Reason: protocol.Nullable(a.Reason)}
	}
	return protocol.MethodCommandApproval, protocol.CommandExecutionRequestApprovalParams{ThreadID: a.ThreadID, TurnID: a.TurnID,
		ItemID: a.ItemID, StartedAtMs: started, Reason: protocol.Nullable(a.Reason), Command: a.Command,
		Cwd: protocol.Nullable(a.Cwd), CommandActions: protocol.UnknownCommand(a.Command)}
}

// approvalDecision reads CommandExecutionApprovalDecision /
// FileChangeApprovalDecision. Accepting with an exec-policy amendment
// approves the command prefix for the session; anything unknown declines.
func approvalDecision(raw json.RawMessage) string {
	var r struct {
		Decision json.RawMessage `json:"decision"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return workflows.DecisionDeny
	}
	var s string
	if json.Unmarshal(r.Decision, &s) == nil {
		switch s {
		case "accept":
			return workflows.DecisionApprove
		case "acceptForSession":
			return workflows.DecisionApproveForSession
		case "cancel":
			return workflows.DecisionAbort
		}
		return workflows.DecisionDeny
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(r.Decision, &obj) == nil {
		if _, ok := obj["acceptWithExecpolicyAmendment"]; ok {
			return workflows.DecisionApproveForSession
		}
	}
	return workflows.DecisionDeny
}

// askDynamic sends item/tool/call for a pending dynamic tool call and
// delivers the client's result. A client error or an unreadable answer is
// delivered as a failed call: the model reads it and the turn goes on.
func (c *conn) askDynamic(d workflows.DynamicCall) {
	c.startAsk(askKey(d.TurnID, d.ItemID), func(ctx context.Context) {
		var params any = dynamicCallParams(d)
		method, read := protocol.MethodToolCall, dynamicAnswer
		if isUserInput(d) {
			p, err := userInputParams(d)
			if err != nil {
				c.deliverDynamic(d, workflows.DynamicAnswer{ThreadID: d.ThreadID, ItemID: d.ItemID, Error: err.Error()})
				return
			}
			method, params, read = protocol.MethodRequestUserInput, p, userInputAnswer
		}
		id, ch, err := c.send(method, params)
		if err != nil {
			c.logf("calling dynamic tool %s: %v", d.Tool, err)
			return
		}
		res, err := c.await(ctx, id, ch)
		if ctx.Err() != nil {
			if c.ctx.Err() == nil {
				c.notifyResolved(d.ThreadID, id)
			}
			return
		}
		ans := workflows.DynamicAnswer{ThreadID: d.ThreadID, ItemID: d.ItemID}
		if err != nil {
			ans.Error = err.Error()
		} else {
			ans = read(ans, res)
		}
		c.deliverDynamic(d, ans)
		c.notifyResolved(d.ThreadID, id)
	})
}

func (c *conn) deliverDynamic(d workflows.DynamicCall, ans workflows.DynamicAnswer) {
	actx, cancel := c.requestContext()
	defer cancel()
	// A result over the limit is cut for the model, with a note, so it
	// always fits in the turn's update.
	ans = workflows.TruncateDynamic(ans)
	if err := c.s.backend.AnswerDynamic(actx, d.TurnID, ans); err != nil {
		c.logf("delivering the result of %s: %v", d.ItemID, err)
	}
}

func dynamicCallParams(d workflows.DynamicCall) protocol.DynamicToolCallParams {
	return protocol.DynamicToolCallParams{ThreadID: d.ThreadID, TurnID: d.TurnID, CallID: d.CallID, Tool: d.Tool,
		Namespace: protocol.Nullable(d.Namespace), Arguments: protocol.Arguments(d.Arguments)}
}

// dynamicAnswer reads a DynamicToolCallResponse.
func dynamicAnswer(ans workflows.DynamicAnswer, raw json.RawMessage) workflows.DynamicAnswer {
	var r struct {
		ContentItems []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL string `json:"imageUrl"`
		} `json:"contentItems"`
		Success *bool `json:"success"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Success == nil {
		ans.Error = fmt.Sprintf("the client's answer is not a tool result (want {contentItems, success}): %s", clip(string(raw), 200))
		return ans
	}
	ans.Success = *r.Success
	for _, it := range r.ContentItems {
		switch it.Type {
		case "inputText":
			ans.Content = append(ans.Content, workflows.DynamicContent{Type: it.Type, Text: it.Text})
		case "inputImage":
			ans.Content = append(ans.Content, workflows.DynamicContent{Type: it.Type, ImageURL: it.ImageURL})
		}
	}
	return ans
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// askPending asks again what a turn waits for: a server that picks a
// running turn up (thread/resume) asks the questions a previous one left
// open.
func (c *conn) askPending(turnID string) {
	ctx, cancel := c.requestContext()
	defer cancel()
	p, err := c.s.backend.Pending(ctx, turnID)
	if err != nil {
		c.logf("reading what turn %s waits for: %v", turnID, err)
		return
	}
	for _, a := range p.Approvals {
		c.askApproval(a)
	}
	for _, d := range p.Dynamic {
		c.askDynamic(d)
	}
}
