package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

func (c *conn) threadStart(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s, err := c.readThreadParams("thread/start", &p)
	if err != nil {
		return nil, err
	}
	if err := p.timeoutParams.check(); err != nil {
		return nil, err
	}
	ts := ThreadSettings{Model: s.Model, Cwd: s.Cwd, ApprovalPolicy: s.ApprovalPolicy, SandboxMode: s.SandboxMode, Config: p.timeoutParams.configKeys(p.Config),
		DynamicTools: s.DynamicTools}
	if p.ModelProvider != nil {
		ts.ModelProvider = *p.ModelProvider
	}
	if p.BaseInstructions != nil {
		ts.BaseInstructions = *p.BaseInstructions
	}
	if p.DeveloperInstructions != nil {
		ts.DeveloperInstructions = *p.DeveloperInstructions
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.s.backend.NewThread(ctx, ts)
	if err != nil {
		return nil, asRequestError(err)
	}
	sub := c.subscribe(info.ID)
	c.seed(sub, nil) // a new thread has no turns
	th := c.thread(info, statusIdle, nil)
	if p.Ephemeral {
		c.mu.Lock()
		sub.ephemeral = true
		c.mu.Unlock()
		th.Ephemeral = true
	}
	return &result{
		value: c.threadResponse(th, info, info.Config),
		then: func() {
			c.notify(notice(protocol.ThreadStarted{Thread: th}))
		},
	}, nil
}

// asRequestError reports a backend's refusal of a client's settings (a bad
// model provider, a missing API key) as the client's error; failures of the
// backend itself stay internal.
func asRequestError(err error) error {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return internalError("%v", err)
	}
	var se *SettingsError
	if errors.As(err, &se) {
		return invalidRequest("%s", se.Error())
	}
	return internalError("%v", err)
}

// SettingsError is a backend's refusal of the settings a client asked for
// (unknown provider, missing API key, missing cwd...): the client's error.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }
func (e *SettingsError) Unwrap() error { return e.Err }

// threadResponse is the result of thread/start and thread/resume.
func (c *conn) threadResponse(th Thread, info ThreadInfo, cfg workflows.ThreadConfig) protocol.ThreadStartResponse {
	sources := info.InstructionSources
	if v := info.View; len(sources) == 0 && v != nil && len(v.Turns) > 0 {
		sources = v.Turns[len(v.Turns)-1].InstructionSources
	}
	if sources == nil {
		sources = []string{}
	}
	return protocol.ThreadStartResponse{
		Thread:             th,
		Model:              cfg.Model,
		ModelProvider:      th.ModelProvider,
		Cwd:                th.Cwd,
		InstructionSources: sources,
		ApprovalPolicy:     orDefault(cfg.ApprovalPolicy, "on-request"),
		ApprovalsReviewer:  "user",
		Sandbox:            sandboxPolicy(cfg.SandboxMode, cfg.Cwd),
		ReasoningEffort:    protocol.Nullable(cfg.Reasoning.Effort),

		ActivePermissionProfile: activeProfile(cfg.SandboxMode),
	}
}

// thread renders a thread.
func (c *conn) thread(info ThreadInfo, status ThreadStatus, turns []protocol.Turn) Thread {
	if turns == nil {
		turns = []protocol.Turn{}
	}
	updated := info.UpdatedAt
	if updated.IsZero() || updated.Before(info.CreatedAt) {
		updated = info.CreatedAt
	}
	var forkedFrom, name *string
	if info.ForkedFrom != "" {
		forkedFrom = &info.ForkedFrom
	}
	if info.Name != "" {
		name = &info.Name
	}
	th := Thread{
		ID: info.ID, SessionID: info.ID, Preview: info.Preview, ForkedFromID: forkedFrom,
		ModelProvider: info.Config.Provider.ID,
		CreatedAt:     info.CreatedAt.Unix(), UpdatedAt: updated.Unix(),
		Status: status, Cwd: info.Config.Cwd, CLIVersion: c.s.opts.Version,
		Turns: turns, Name: name,
		Model: protocol.Nullable(info.Config.Model), ReasoningEffort: protocol.Nullable(info.Config.Reasoning.Effort),
	}
	switch {
	case info.View != nil && info.View.Parent != nil:
		subAgentThread(&th, *info.View.Parent)
	case info.Parent != nil:
		subAgentThread(&th, *info.Parent)
	}
	return th
}

// subscribe makes this connection follow a thread's turns.
func (c *conn) subscribe(threadID string) *threadState {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := c.threads[threadID]
	if ts == nil {
		ts = &threadState{id: threadID, followed: map[string]bool{}}
		ts.ctx, ts.stop = context.WithCancel(c.ctx)
		c.threads[threadID] = ts
		c.watch(ts)
	}
	return ts
}

// unsubscribe stops following a thread: no more of its notifications on
// this connection; its running turn goes on in its workflow.
func (c *conn) unsubscribe(threadID string) bool {
	c.mu.Lock()
	ts := c.threads[threadID]
	delete(c.threads, threadID)
	c.mu.Unlock()
	if ts == nil {
		return false
	}
	ts.stop()
	return true
}

func (c *conn) subscribed(threadID string) *threadState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.threads[threadID]
}

// statusOf is a thread's status as this connection sees it: active while
// a turn runs, idle when this connection follows it, notLoaded otherwise.
func (c *conn) statusOf(info ThreadInfo) ThreadStatus {
	if info.View != nil && info.View.RunningTurn != "" {
		return statusActive()
	}
	if ts := c.subscribed(info.ID); ts != nil {
		c.mu.Lock()
		f := ts.follower
		c.mu.Unlock()
		if f != nil {
			return statusActive()
		}
		return statusIdle
	}
	return statusNotLoaded
}

func threadNotFound(id string) error {
	return invalidRequest("thread not found: %s", id)
}

// readThread reads a thread, mapping "no such thread" to the protocol's
// error.
func (c *conn) readThread(ctx context.Context, id string) (ThreadInfo, error) {
	if strings.TrimSpace(id) == "" {
		return ThreadInfo{}, threadNotFound(id)
	}
	info, err := c.s.backend.Thread(ctx, id)
	if errors.Is(err, threads.ErrThreadNotFound) {
		return info, threadNotFound(id)
	}
	if err != nil {
		return info, internalError("reading thread %s: %v", id, err)
	}
	return info, nil
}

// keptTurnItems is how many of a thread's most recent turns thread/read
// and thread/resume load items for; older turns are listed without them.
const keptTurnItems = 20

// turns lists a thread's turns with their items; for a running turn, the
// items logged so far, and the sequence number they reach.
func (c *conn) turns(ctx context.Context, info ThreadInfo) (turns []protocol.Turn, running TurnLog, err error) {
	v := info.View
	if v == nil {
		return nil, running, nil
	}
	for i, r := range v.Turns {
		t := protocol.Turn{ID: r.TurnID, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: turnStatus(r.Status)}
		if r.Status == workflows.StatusFailed {
			t.Error = turnError(r.Error)
		}
		if i >= len(v.Turns)-keptTurnItems {
			// A finished turn whose log cannot be read (its workflow
			// was removed by the namespace's retention) is listed
			// without items.
			if log, err := c.s.backend.TurnLog(ctx, r.TurnID); err == nil {
				t.Items = turnItems(c.userItem(r.Number, log.Prompt), log.Events)
				t.ItemsView = protocol.ItemsFull
			} else {
				c.logf("reading turn %s: %v", r.TurnID, err)
			}
		}
		turns = append(turns, t)
	}
	if v.RunningTurn != "" {
		log, err := c.s.backend.TurnLog(ctx, v.RunningTurn)
		if err != nil {
			return nil, running, internalError("reading turn %s: %v", v.RunningTurn, err)
		}
		t := protocol.Turn{ID: v.RunningTurn, ItemsView: protocol.ItemsFull, Status: turnInProgress,
			Items: turnItems(c.userItem(turnNumber(v.RunningTurn), log.Prompt), log.Events)}
		if r := log.Result; r != nil {
			// Ended, and its followers told so, before the thread has taken
			// in its end: listed as they were told.
			t.Status = turnStatus(r.Status)
			if r.Status == workflows.StatusFailed {
				t.Error = turnError(r.Error)
			}
		}
		turns = append(turns, t)
		return turns, log, nil
	}
	return turns, running, nil
}

func (c *conn) userItem(n int, prompt string) protocol.ThreadItem {
	return userMessage(n, []protocol.UserInput{protocol.Text(prompt)})
}

type threadIDParams struct {
	ThreadID     string `json:"threadId"`
	IncludeTurns bool   `json:"includeTurns"`
}

func (c *conn) threadRead(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	var turns []protocol.Turn
	if p.IncludeTurns {
		if turns, _, err = c.turns(ctx, info); err != nil {
			return nil, err
		}
	}
	return &result{value: protocol.ThreadResponse{Thread: c.thread(info, c.statusOf(info), turns)}}, nil
}

type resumeParams struct {
	threadParams
	ThreadID string `json:"threadId"`
}

// threadResume opens an existing thread on this connection, from any
// process and after any crash: the response carries its turns with their
// items, and if a turn is running, its remaining events follow.
func (c *conn) threadResume(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p resumeParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	s, err := c.readThreadParams("thread/resume", &p.threadParams)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	turns, log, err := c.turns(ctx, info)
	if err != nil {
		return nil, err
	}
	ts := c.subscribe(info.ID)
	ids := make([]string, 0, len(info.View.Turns))
	for _, t := range info.View.Turns {
		ids = append(ids, t.TurnID)
	}
	c.seed(ts, ids)
	c.mu.Lock()
	ts.pending.merge(s)
	pending := ts.pending
	following := ts.follower != nil
	c.mu.Unlock()
	cfg := pending.apply(info.Config)
	info.Config.Cwd = cfg.Cwd
	res := &result{value: c.threadResponse(c.thread(info, c.statusOf(info), turns), info, cfg)}
	if running := info.View.RunningTurn; running != "" && !following {
		f := c.newFollower(ts, running, []protocol.UserInput{protocol.Text(log.Prompt)}, log.Last)
		f.tr.resume(log.Events)
		res.then = f.start
	}
	return res, nil
}

// threadUnsubscribe stops this connection's notifications of a thread.
func (c *conn) threadUnsubscribe(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		ThreadID string `json:"threadId"`
	}
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	status := "notSubscribed"
	if ts := c.subscribed(p.ThreadID); ts != nil {
		c.mu.Lock()
		ephemeral := ts.ephemeral
		c.mu.Unlock()
		if c.unsubscribe(p.ThreadID) {
			status = "unsubscribed"
			if ephemeral {
				c.s.dropEphemeral(p.ThreadID)
			}
		}
	}
	return &result{value: protocol.ThreadUnsubscribeResponse{Status: status}}, nil
}
