package appserver

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
)

type turnSteerParams struct {
	ThreadID       string          `json:"threadId"`
	Input          json.RawMessage `json:"input"`
	ExpectedTurnID string          `json:"expectedTurnId"`
}

// turnSteer adds input to the running turn: the model reads it before its
// next call, and the turn's notifications show it as a userMessage item.
func (c *conn) turnSteer(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p turnSteerParams
	if err := decodeParams(raw, &p, "threadId", "input", "expectedTurnId"); err != nil {
		return nil, err
	}
	_, prompt, images, err := decodeInput(p.Input, c.absPath)
	if err != nil {
		return nil, err
	}
	if len(images) > 0 {
		return nil, invalidRequest("Invalid request: images cannot be steered into a running turn; send them with the next turn/start")
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	switch running := info.View.RunningTurn; {
	case running == "":
		return nil, invalidRequest("no active turn to steer")
	case running != p.ExpectedTurnID:
		return nil, invalidRequest("expected active turn id `%s` but found `%s`", p.ExpectedTurnID, running)
	}
	if err := c.s.backend.Steer(ctx, p.ThreadID, p.ExpectedTurnID, prompt); err != nil {
		return nil, steerError(err)
	}
	return &result{value: protocol.TurnIDResponse{TurnID: p.ExpectedTurnID}}, nil
}

// steerError maps a turn's refusal (it is finishing, or another turn runs
// by now) to the client's error.
func steerError(err error) error {
	switch {
	case errors.Is(err, threads.ErrNoActiveTurn):
		// Kept recognisable: turn/start then starts a turn after all.
		return &refusedRequest{rpcError: invalidRequest("%s", innermost(err)), kind: threads.ErrNoActiveTurn}
	case errors.Is(err, threads.ErrWrongTurn), errors.Is(err, threads.ErrSteerRefused):
		return invalidRequest("%s", innermost(err))
	}
	return internalError("steering the turn: %v", err)
}

// steerRunning answers a turn/start sent while a turn runs, as the
// reference does: its input goes into the running turn, and the response
// names that turn.
func (c *conn) steerRunning(threadID, prompt string) (*result, error) {
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, threadID)
	if err != nil {
		return nil, err
	}
	running := info.View.RunningTurn
	if running == "" {
		// It ended meanwhile: the caller starts a turn.
		return nil, &refusedRequest{rpcError: invalidRequest("no active turn to steer"), kind: threads.ErrNoActiveTurn}
	}
	if err := c.s.backend.Steer(ctx, threadID, running, prompt); err != nil {
		return nil, steerError(err)
	}
	turn := protocol.Turn{ID: running, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: turnInProgress}
	return &result{value: protocol.TurnResponse{Turn: turn}}, nil
}

type nameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

// threadNameSet names a thread; the name is kept by the thread workflow
// and shown by thread/read and thread/list.
func (c *conn) threadNameSet(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p nameParams
	if err := decodeParams(raw, &p, "threadId", "name"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	if err := c.s.backend.SetName(ctx, p.ThreadID, p.Name); err != nil {
		return nil, manageError(p.ThreadID, err)
	}
	name := strings.TrimSpace(p.Name)
	return &result{value: protocol.Empty{}, then: func() {
		c.notify(notice(protocol.ThreadNameUpdated{ThreadID: p.ThreadID, ThreadName: protocol.Nullable(name)}))
	}}, nil
}

// manageError maps a thread's refusal of a request (archived, a turn
// runs) to the client's error.
func manageError(threadID string, err error) error {
	switch {
	case errors.Is(err, threads.ErrThreadNotFound):
		return threadNotFound(threadID)
	case errors.Is(err, threads.ErrThreadArchived):
		return invalidRequest("thread %s is archived", threadID)
	}
	var se *SettingsError
	if errors.As(err, &se) {
		return invalidRequest("%s", se.Error())
	}
	for _, refusal := range []error{threads.ErrTurnRunning, threads.ErrTurnWaiting, threads.ErrCompacting, threads.ErrOverLimit, threads.ErrNotArchived} {
		if errors.Is(err, refusal) {
			return invalidRequest("%s", innermost(err))
		}
	}
	return internalError("%v", err)
}

// refusedRequest is a client's error that keeps the refusal it answers
// recognisable (errors.Is) by the handler that asked.
type refusedRequest struct {
	*rpcError
	kind error
}

func (r *refusedRequest) Unwrap() error        { return r.rpcError }
func (r *refusedRequest) Is(target error) bool { return target == r.kind }

// threadArchive archives an idle thread: its workflow completes, so it
// leaves thread/list (archived: false) and takes no turns until
// thread/unarchive.
func (c *conn) threadArchive(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	if err := c.s.backend.Archive(ctx, p.ThreadID); err != nil {
		return nil, manageError(p.ThreadID, err)
	}
	return &result{value: protocol.Empty{}, then: func() {
		c.notify(notice(protocol.ThreadArchived{ThreadID: p.ThreadID}))
	}}, nil
}

// threadUnarchive brings an archived thread back: a new run of its
// workflow starts from the state it was archived with (history, name,
// settings, dynamic tools), under the same id.
func (c *conn) threadUnarchive(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	info, err := c.s.backend.Unarchive(ctx, p.ThreadID)
	if err != nil {
		return nil, manageError(p.ThreadID, err)
	}
	th := c.thread(info, c.statusOf(info), nil)
	return &result{value: protocol.ThreadResponse{Thread: th}, then: func() {
		c.notify(notice(protocol.ThreadUnarchived{ThreadID: p.ThreadID}))
	}}, nil
}
