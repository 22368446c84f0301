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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one JSON-RPC line (the SDK's own default).
const maxLine = mcp.DefaultMaxLineLength

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
			return nil, l.err
		}
		line := bytes.TrimSpace(l.line)
		if len(line) == 0 {
			continue
		}
		msg, err := decodeLine(line)
		if err == nil {
			return msg, nil
		}
		if werr := c.writeRaw(errorLine(err)); werr != nil {
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
		return nil, &lineError{jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()}
	}
	return msg, nil
}

// errorLine is the JSON-RPC error answer to a line with no usable id.
func errorLine(err error) []byte {
	le := &lineError{code: jsonrpc.CodeInternalError, msg: err.Error()}
	errors.As(err, &le)
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": le.code, "message": le.msg},
	})
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
	return c.writeRaw(data)
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
