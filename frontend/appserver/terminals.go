package appserver

import (
	"encoding/json"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// thread/backgroundTerminals/clean and /terminate, which the TUI's /stop
// sends. A thread's unified-exec sessions live in the worker process
// that started them and end with the turn that is interrupted, with the
// thread when it is archived or deleted, or when the model closes them;
// thread/backgroundTerminals/list lists none, so there is no terminal a
// client could name here. Both answer as Codex's server does for a thread
// without background terminals: clean succeeds, terminate reports that
// nothing was terminated; an unknown thread is an error.

type terminateParams struct {
	ThreadID  string `json:"threadId"`
	ProcessID string `json:"processId"`
}

func (c *conn) backgroundTerminalsClean(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	return &result{value: protocol.Empty{}}, nil
}

func (c *conn) backgroundTerminalsTerminate(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p terminateParams
	if err := decodeParams(raw, &p, "threadId", "processId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	return &result{value: protocol.TerminateResponse{Terminated: false}}, nil
}
