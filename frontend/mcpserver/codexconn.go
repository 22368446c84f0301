package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaRequestID is the _meta key under which codexConn hands a tools/call
// request's JSON-RPC id to its handler (the SDK does not expose it); any
// value a client put there is replaced.
const metaRequestID = "interpreter.dev/requestId"

// codexTransport wraps a transport so the server can write notifications of
// its own (codex/event) on the same connection as the SDK's messages, learn
// each tool call's request id, and see notifications/cancelled.
type codexTransport struct {
	inner mcp.Transport
	conn  *codexConn
}

func (t *codexTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	ic, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.inner = ic
	return t.conn, nil
}

// codexConn is one client connection.
type codexConn struct {
	inner mcp.Connection

	mu      sync.Mutex
	calls   map[string]*call                  // running tool calls by request id (JSON)
	elicits map[string]chan *jsonrpc.Response // our elicitation requests by id
	open    map[string]openRequest            // the client's requests not answered yet, by id
}

func newCodexConn() *codexConn {
	return &codexConn{calls: map[string]*call{}, open: map[string]openRequest{}}
}

func (c *codexConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.inner.Read(ctx)
	for err == nil && (c.takeElicitResponse(msg) || c.refusedDuplicate(ctx, msg)) {
		msg, err = c.inner.Read(ctx)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		switch {
		case req.Method == "tools/call" && req.IsCall():
			req.Params = withRequestID(req.Params, req.ID)
		case req.Method == "notifications/cancelled":
			c.cancelled(req.Params)
		}
	}
	return msg, err
}

func (c *codexConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.ID.IsValid() {
		c.mu.Lock()
		req := c.open[idKey(r.ID)]
		delete(c.open, idKey(r.ID))
		c.mu.Unlock()
		msg = inClientTerms(req, r)
	}
	return c.inner.Write(ctx, msg)
}

// refusedDuplicate answers a request whose id is that of a request still
// running with an error of its own (the SDK would drop it without an
// answer), and tells Read to read on.
func (c *codexConn) refusedDuplicate(ctx context.Context, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return false
	}
	key := idKey(req.ID)
	c.mu.Lock()
	_, dup := c.open[key]
	if !dup {
		c.open[key] = openRequest{method: req.Method, params: req.Params}
	}
	c.mu.Unlock()
	if !dup {
		return false
	}
	_ = c.inner.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: fmt.Sprintf("request id %s is already in use by a request that has not been answered yet; use a new id", key)}})
	return true
}

// idKey is a request id as JSON (1 and "1" differ).
func idKey(id jsonrpc.ID) string {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return fmt.Sprint(id.Raw())
	}
	return string(b)
}

func (c *codexConn) Close() error      { return c.inner.Close() }
func (c *codexConn) SessionID() string { return c.inner.SessionID() }

// notify writes a notification of our own, in order with the SDK's
// messages (the inner connection serializes writes).
func (c *codexConn) notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	return c.inner.Write(ctx, &jsonrpc.Request{Method: method, Params: raw})
}

// withRequestID puts the request id into params._meta; params that are not
// an object are left alone (the SDK rejects them).
func withRequestID(params json.RawMessage, id jsonrpc.ID) json.RawMessage {
	var p map[string]json.RawMessage
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return params
	}
	if p == nil {
		p = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if raw, ok := p["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	idJSON, err := json.Marshal(id.Raw())
	if err != nil {
		return params
	}
	// The id travels as a JSON string holding its JSON, so its type
	// (number or string) survives the round trip.
	meta[metaRequestID], _ = json.Marshal(string(idJSON))
	p["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// requestIDOf reads the id withRequestID stored.
func requestIDOf(meta mcp.Meta) json.RawMessage {
	if s, ok := meta[metaRequestID].(string); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return nil
}

func (c *codexConn) register(cl *call) {
	if cl.reqKey == "" {
		return
	}
	c.mu.Lock()
	c.calls[cl.reqKey] = cl
	c.mu.Unlock()
}

func (c *codexConn) unregister(cl *call) {
	c.mu.Lock()
	if c.calls[cl.reqKey] == cl {
		delete(c.calls, cl.reqKey)
	}
	c.mu.Unlock()
}

// cancelled handles notifications/cancelled: the named call's turn is
// interrupted (the SDK cancels the handler's context on its own).
func (c *codexConn) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	var buf bytes.Buffer
	if json.Compact(&buf, p.RequestID) != nil {
		return
	}
	key := buf.String()
	c.mu.Lock()
	cl := c.calls[key]
	c.mu.Unlock()
	if cl != nil {
		cl.cancel()
	}
}
