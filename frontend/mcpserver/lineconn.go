package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one JSON-RPC line (the SDK's own default).
const maxLine = mcp.DefaultMaxLineLength

// eofGrace is how long, after stdin ends, requests already read may still
// be answered: quick ones (initialize, tools/list) get their answers out;
// a codex call following its turn is let go (the turn goes on).
const eofGrace = 2 * time.Second

// lineTransport is newline-delimited JSON-RPC over a byte stream (stdin and
// stdout). Unlike the SDK's IOTransport, a line that is not a JSON-RPC
// message is answered with a parse error and the next line is read, so one
// bad line does not end the session.
type lineTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, lines: make(chan lineOrErr), closed: make(chan struct{})}
	go c.readLines(t.in)
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

type lineConn struct {
	out    io.Writer
	wmu    sync.Mutex
	lines  chan lineOrErr
	closed chan struct{}
	once   sync.Once

	pmu     sync.Mutex
	pending map[string]bool // ids of requests read and not yet answered
}

func (c *lineConn) readLines(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		select {
		case c.lines <- lineOrErr{line: line}:
		case <-c.closed:
			return
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	select {
	case c.lines <- lineOrErr{err: err}:
	case <-c.closed:
	}
}

// Read returns the next JSON-RPC message, answering bad lines on the way.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l lineOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			c.drain(eofGrace)
			return nil, l.err
		}
		line := bytes.TrimSpace(l.line)
		if len(line) == 0 {
			continue
		}
		msg, err := decodeLine(line)
		if err == nil {
			c.track(msg, true)
			return msg, nil
		}
		if werr := c.writeRaw(errorLine(line, err)); werr != nil {
			return nil, werr
		}
	}
}

// lineError is a line that is not a message we serve.
type lineError struct {
	code int64
	msg  string
}

func (e *lineError) Error() string { return e.msg }

func decodeLine(line []byte) (jsonrpc.Message, error) {
	if !json.Valid(line) {
		return nil, &lineError{jsonrpc.CodeParseError, "Parse error: the line is not valid JSON"}
	}
	if line[0] == '[' {
		return nil, &lineError{jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported"}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, &lineError{jsonrpc.CodeInvalidRequest, describeBadMessage(line, err)}
	}
	return msg, nil
}

// errorLine is the JSON-RPC error answer to a bad line: with the line's id
// when it has a usable one, else null.
func errorLine(line []byte, err error) []byte {
	le := &lineError{code: jsonrpc.CodeInternalError, msg: err.Error()}
	errors.As(err, &le)
	var id any
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &probe) == nil {
		switch probe.ID.(type) {
		case string, float64:
			id = probe.ID
		}
	}
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct { // keys in the order they always had
		Error   rpcError `json:"error"`
		ID      any      `json:"id"`
		JSONRPC string   `json:"jsonrpc"`
	}{rpcError{le.code, le.msg}, id, "2.0"})
	return b
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	if err := c.writeRaw(data); err != nil {
		return err
	}
	c.track(msg, false)
	return nil
}

// track keeps the ids of the client's requests until they are answered.
func (c *lineConn) track(msg jsonrpc.Message, read bool) {
	var id jsonrpc.ID
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !read || !m.IsCall() {
			return
		}
		id = m.ID
	case *jsonrpc.Response:
		if read {
			return
		}
		id = m.ID
	default:
		return
	}
	key := fmt.Sprintf("%T:%v", id.Raw(), id.Raw())
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.pending == nil {
		c.pending = map[string]bool{}
	}
	if read {
		c.pending[key] = true
	} else {
		delete(c.pending, key)
	}
}

// drain waits until every request read has been answered, at most grace.
func (c *lineConn) drain(grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.closed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (c *lineConn) writeRaw(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
