package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// thread/backgroundTerminals/list, /clean and /terminate (experimental;
// the TUI's /ps and /stop): a thread's background terminals are its
// unified-exec sessions still running when its last turn ended, held by
// the worker process that started them (workflows/bgterm.go). A backend
// without them lists none, as Codex's server answers a thread without
// background terminals.

// TerminalsBackend is a [Backend] whose threads keep background
// terminals.
type TerminalsBackend interface {
	BackgroundTerminals(ctx context.Context, threadID string) ([]workflows.BackgroundTerminal, error)
	// EndedTerminals says how the last ones ended, for their late item/completed.
	EndedTerminals(ctx context.Context, threadID string) ([]workflows.EndedTerminal, error)
	TerminateTerminal(ctx context.Context, threadID, processID string) (bool, error)
	CleanTerminals(ctx context.Context, threadID string) (int, error)
}

type terminateParams struct {
	ThreadID  string `json:"threadId"`
	ProcessID string `json:"processId"`
}

type terminalsListParams struct {
	ThreadID string  `json:"threadId"`
	Cursor   *string `json:"cursor"`
	Limit    *uint32 `json:"limit"`
}

func (c *conn) backgroundTerminalsList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p terminalsListParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	page := protocol.Page[protocol.ThreadBackgroundTerminal]{Data: []protocol.ThreadBackgroundTerminal{}}
	tb, ok := c.s.backend.(TerminalsBackend)
	if !ok {
		return &result{value: page}, nil
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	list, err := tb.BackgroundTerminals(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return nil, invalidRequest("invalid cursor: %s", *p.Cursor)
		}
		start = min(n, len(list))
	}
	end := len(list)
	if p.Limit != nil && *p.Limit > 0 && start+int(*p.Limit) < end {
		end = start + int(*p.Limit)
		next := strconv.Itoa(end)
		page.NextCursor = &next
	}
	for _, t := range list[start:end] {
		page.Data = append(page.Data, protocol.ThreadBackgroundTerminal{ProcessID: t.ProcessID, Command: t.Command, Cwd: t.Cwd, ItemID: t.ItemID})
	}
	return &result{value: page}, nil
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
	release := c.killing(p.ThreadID)
	if tb, ok := c.s.backend.(TerminalsBackend); ok {
		if _, err := tb.CleanTerminals(ctx, p.ThreadID); err != nil && !errors.Is(err, threads.ErrThreadArchived) {
			release()
			return nil, invalidRequest("failed to clean background terminals: %v", err)
		}
	}
	// Codex's server completes the ended items after its response.
	return &result{value: protocol.Empty{}, then: func() { c.releaseThread(p.ThreadID, ""); release() }}, nil
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
	tb, ok := c.s.backend.(TerminalsBackend)
	if !ok {
		return &result{value: protocol.TerminateResponse{Terminated: false}}, nil
	}
	release := c.killing(p.ThreadID)
	done, err := tb.TerminateTerminal(ctx, p.ThreadID, p.ProcessID)
	switch {
	case errors.Is(err, threads.ErrBadProcessID):
		release()
		return nil, invalidRequest("%v", err)
	case errors.Is(err, threads.ErrThreadArchived):
		done = false
	case err != nil:
		release()
		return nil, err
	}
	res := &result{value: protocol.TerminateResponse{Terminated: done}}
	if done {
		res.then = func() { c.releaseThread(p.ThreadID, p.ProcessID); release() }
	} else {
		release()
	}
	return res, nil
}
