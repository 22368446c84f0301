package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// handlers are the tools of one connection.
type handlers struct {
	s    *Server
	conn *codexConn
}

func (h *handlers) codex(ctx context.Context, req *mcp.CallToolRequest, in CodexArgs) (*mcp.CallToolResult, Result, error) {
	c := h.newCall(req)
	defer h.conn.unregister(c)
	if strings.TrimSpace(in.Prompt) == "" {
		return failed("", "prompt is empty")
	}
	if err := checkCodexArgs(in); err != nil {
		return failed("", err.Error())
	}
	if in.Cwd != "" && !filepath.IsAbs(in.Cwd) {
		in.Cwd = filepath.Join(h.s.opts.Cwd, in.Cwd)
	}
	sctx, cancel := h.startContext(ctx)
	defer cancel()
	st, err := h.s.backend.NewThread(sctx, in)
	if err != nil {
		return failed("", "starting the session: "+err.Error())
	}
	c.setThread(st.ThreadID)
	c.emit(ctx, st.TurnID, sessionConfigured(st))
	return c.runTurn(ctx, st.TurnID)
}

func (h *handlers) reply(ctx context.Context, req *mcp.CallToolRequest, in ReplyArgs) (*mcp.CallToolResult, Result, error) {
	c := h.newCall(req)
	defer h.conn.unregister(c)
	id := in.ThreadID
	if id == "" {
		id = in.ConversationID
	}
	switch {
	case in.ThreadID != "" && in.ConversationID != "" && in.ThreadID != in.ConversationID:
		return failed(in.ThreadID, "threadId and conversationId name different threads; pass threadId only")
	case id == "":
		return failed("", "threadId is required")
	case workflows.CheckThreadID(id) != nil:
		return failed(id, workflows.CheckThreadID(id).Error())
	case strings.TrimSpace(in.Prompt) == "":
		return failed(id, "prompt is empty")
	case workflows.CheckInput("prompt", in.Prompt) != nil:
		return failed(id, workflows.CheckInput("prompt", in.Prompt).Error())
	}
	c.setThread(id)
	sctx, cancel := h.startContext(ctx)
	defer cancel()
	waited := ""
	for {
		st, err := h.s.backend.Reply(sctx, id, in.Prompt)
		var busy *BusyError
		switch {
		case errors.As(err, &busy):
			// The thread still runs a turn (perhaps one whose client is
			// gone): report it as it goes, then run ours.
			if busy.TurnID == waited {
				time.Sleep(100 * time.Millisecond) // its thread has not taken in the end yet
			}
			waited = busy.TurnID
			if _, err := c.follow(ctx, busy.TurnID, false); err != nil {
				return c.stopped(ctx, err)
			}
			continue
		case errors.Is(err, threads.ErrThreadNotFound):
			return failed(id, "thread not found: "+id)
		case err != nil:
			return failed(id, "starting the turn: "+err.Error())
		}
		c.mu.Lock()
		c.known = st.Known
		c.mu.Unlock()
		return c.runTurn(ctx, st.TurnID)
	}
}

// checkCodexArgs refuses text over the input limits before anything
// starts, naming the argument.
func checkCodexArgs(in CodexArgs) error {
	for _, f := range []struct{ name, text string }{
		{"prompt", in.Prompt},
		{"base-instructions", in.BaseInstructions},
		{"developer-instructions", in.DeveloperInstructions},
		{"compact-prompt", in.CompactPrompt},
	} {
		if err := workflows.CheckInput(f.name, f.text); err != nil {
			return err
		}
	}
	return nil
}

// startContext is for starting a turn: not cancelled with the request, so
// that a turn that did start is known (and then interrupted) when the
// client cancels mid-start.
func (h *handlers) startContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), h.s.opts.StartTimeout)
}

// call is one running tool call.
type call struct {
	h       *handlers
	session *mcp.ServerSession
	reqID   json.RawMessage // the JSON-RPC id, as the client sent it
	reqKey  string
	token   any // progress token, if the client sent one

	mu        sync.Mutex
	threadID  string
	cancelled bool
	progress  float64
	// known is the result the thread answered the call's turn with, if
	// it did (Started.Known).
	known *workflows.TurnResult
}

func (h *handlers) newCall(req *mcp.CallToolRequest) *call {
	id := requestIDOf(req.Params.Meta)
	c := &call{h: h, session: req.Session, reqID: id, reqKey: string(id), token: req.Params.GetProgressToken()}
	h.conn.register(c)
	return c
}

func (c *call) setThread(id string) {
	c.mu.Lock()
	c.threadID = id
	interrupt := c.cancelled
	c.mu.Unlock()
	if interrupt {
		go c.interrupt(id)
	}
}

// cancel is the client's notifications/cancelled: the call's turn stops.
func (c *call) cancel() {
	c.mu.Lock()
	c.cancelled = true
	id := c.threadID
	c.mu.Unlock()
	if id != "" {
		go c.interrupt(id)
	}
}

func (c *call) isCancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled
}

func (c *call) interrupt(threadID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.h.s.backend.Interrupt(ctx, threadID); err != nil {
		c.h.s.logger.Warn("interrupting a cancelled call's turn", "thread", threadID, "error", err)
	}
}

// emit sends one Codex event as a codex/event notification, and a progress
// notification when the client asked for progress.
func (c *call) emit(ctx context.Context, turnID string, m msg) {
	c.mu.Lock()
	threadID := c.threadID
	c.progress++
	progress := c.progress
	c.mu.Unlock()
	params := codexEventParams{Meta: codexEventMeta{RequestID: c.reqID, ThreadID: threadID}, ID: turnID, Msg: wireEvent{m}}
	if err := c.h.conn.notify(ctx, "codex/event", params); err != nil && ctx.Err() == nil {
		c.h.s.logger.Warn("sending codex/event", "error", err)
	}
	if c.token == nil || isDelta(m) {
		return
	}
	err := c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: progress, Message: summary(m)})
	if err != nil && ctx.Err() == nil {
		c.h.s.logger.Warn("sending notifications/progress", "error", err)
	}
}

// follow reports a turn's events and live output until it ends, then its
// end, and returns its result. announced: task_started was sent already.
func (c *call) follow(ctx context.Context, turnID string, announced bool) (workflows.TurnResult, error) {
	c.mu.Lock()
	m := eventMapper{announced: announced, threadID: c.threadID}
	c.mu.Unlock()
	asks := newAsks(ctx)
	defer asks.stop()
	for u := range c.stream(turnID).Updates(ctx) {
		if x, ok := liveMessage(u); ok {
			c.emit(ctx, turnID, x)
			continue
		}
		switch u.Kind {
		case threads.UpdateEvent:
			c.event(ctx, turnID, &m, asks, u)
		case threads.UpdateEnd:
			if u.Err != nil {
				return workflows.TurnResult{}, u.Err
			}
			for _, x := range endMessages(*u.Result) {
				c.emit(ctx, turnID, x)
			}
			return *u.Result, nil
		}
	}
	return workflows.TurnResult{}, ctx.Err()
}

// event sends the messages of one event of the log and asks what it
// requests.
func (c *call) event(ctx context.Context, turnID string, m *eventMapper, asks *asks, u threads.Update) {
	e := u.Event
	msgs := m.messages(e)
	if x, ok := restMessage(u); ok {
		c.emit(ctx, turnID, x)
	}
	for _, x := range msgs {
		c.emit(ctx, turnID, x)
	}
	switch {
	case e.Type == workflows.EventApprovalRequested && e.Approval != nil:
		// Asked in the background: a log read after a restart holds
		// requests that were answered since, and their answer follows.
		asks.start(e.Approval.ItemID, func(ctx context.Context) { c.askApproval(ctx, e.Approval) })
	case e.Type == workflows.EventApprovalResolved && e.Approval != nil:
		asks.cancel(e.Approval.ItemID)
	case e.Type == workflows.EventAgentApprovalRequested && e.Approval != nil:
		// A sub-agent's, relayed by the root: its threadId names the
		// sub-agent, whose turn takes the decision.
		a := e.Approval
		asks.start(a.ThreadID+"#"+a.ItemID, func(ctx context.Context) { c.askApproval(ctx, a) })
	case e.Type == workflows.EventAgentApprovalResolved && e.Approval != nil:
		asks.cancel(e.Approval.ThreadID + "#" + e.Approval.ItemID)
	}
}

// runTurn follows the call's own turn and answers with its outcome.
func (c *call) runTurn(ctx context.Context, turnID string) (*mcp.CallToolResult, Result, error) {
	// The turn has started (the thread accepted it): say so now, as Codex
	// does, rather than with the turn's first events, which a slow model
	// keeps back for a moment (see workflows.WaitRequest.HoldMs).
	c.emit(ctx, turnID, taskStarted(turnID))
	res, err := c.follow(ctx, turnID, true)
	if err != nil {
		return c.stopped(ctx, err)
	}
	if res.Status != workflows.StatusCompleted {
		return failed(c.threadID, failure(res))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.FinalMessage}}},
		Result{ThreadID: c.threadID, Content: res.FinalMessage}, nil
}

// stopped answers a call that stopped following its turn.
func (c *call) stopped(ctx context.Context, err error) (*mcp.CallToolResult, Result, error) {
	switch {
	case c.isCancelled():
		return failed(c.threadID, "cancelled: the turn was interrupted")
	case ctx.Err() != nil:
		return failed(c.threadID, "the connection closed; the turn goes on in its workflow")
	}
	return failed(c.threadID, "following the turn: "+err.Error())
}

// failed is an isError result that still names the thread.
func failed(threadID, text string) (*mcp.CallToolResult, Result, error) {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}},
		Result{ThreadID: threadID, Content: text}, nil
}

// codexEventParams are a codex/event notification's params, their keys in
// sorted order as the clients have always read them.
type codexEventParams struct {
	Meta codexEventMeta `json:"_meta"`
	ID   string         `json:"id"`
	Msg  wireEvent      `json:"msg"`
}

// codexEventMeta names the tools/call request and the thread an event
// belongs to.
type codexEventMeta struct {
	RequestID json.RawMessage `json:"requestId"`
	ThreadID  string          `json:"threadId"`
}
