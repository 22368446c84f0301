package appserver

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

type turnStartParams struct {
	ThreadID       string          `json:"threadId"`
	Input          json.RawMessage `json:"input"`
	Cwd            *string         `json:"cwd"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	SandboxPolicy  json.RawMessage `json:"sandboxPolicy"`
	Model          *string         `json:"model"`
	// Effort and Summary change the reasoning settings from this turn on.
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
	// CollaborationMode (experimental) puts this turn in plan or default
	// mode (collab.go).
	CollaborationMode json.RawMessage `json:"collaborationMode"`
	timeoutParams

	// Permissions names a permission profile (permissions.go).
	Permissions *string `json:"permissions"`
}

// turnStart sends a turn to a thread and answers at once with the turn in
// progress; the turn's notifications follow the response.
func (c *conn) turnStart(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p turnStartParams
	if err := decodeParams(raw, &p, "threadId", "input"); err != nil {
		return nil, err
	}
	items, prompt, images, err := decodeInput(p.Input, c.absPath)
	if err != nil {
		return nil, err
	}
	var s settings
	if err := p.timeoutParams.check(); err != nil {
		return nil, err
	}
	s.Timeouts = p.timeoutParams.overrides()
	if p.Model != nil {
		s.Model = *p.Model
	}
	if p.Effort != nil {
		s.Effort = *p.Effort
	}
	if p.Summary != nil {
		s.Summary = *p.Summary
	}
	modeRaw := p.CollaborationMode
	if ts := c.subscribed(p.ThreadID); !isSet(modeRaw) && ts != nil {
		c.mu.Lock()
		modeRaw = ts.mode
		c.mu.Unlock()
	}
	mode, err := c.turnMode(modeRaw, &s)
	if err != nil {
		return nil, err
	}
	if err := workflows.CheckReasoning(s.Effort, s.Summary); err != nil {
		return nil, invalidRequest("%s", strings.NewReplacer("model_reasoning_effort", "effort", "model_reasoning_summary", "summary").Replace(err.Error()))
	}
	if p.Cwd != nil && *p.Cwd != "" {
		s.Cwd = c.absPath(*p.Cwd)
	}
	if isSet(p.ApprovalPolicy) {
		if s.ApprovalPolicy, err = approvalPolicyOf(p.ApprovalPolicy, "approvalPolicy"); err != nil {
			return nil, err
		}
	}
	if isSet(p.SandboxPolicy) {
		if s.SandboxMode, err = sandboxModeOf(p.SandboxPolicy, "sandboxPolicy"); err != nil {
			return nil, err
		}
	}
	if p.Permissions != nil {
		if s.SandboxMode, err = sandboxOfProfile(*p.Permissions, "permissions"); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(p.ThreadID) == "" {
		return nil, threadNotFound(p.ThreadID)
	}
	ts := c.subscribed(p.ThreadID)
	if ts != nil {
		c.mu.Lock()
		pending := ts.pending
		c.mu.Unlock()
		pending.merge(s)
		s = pending
	}
	req := workflows.StartTurnRequest{Prompt: prompt, Model: s.Model, Cwd: s.Cwd, SandboxMode: s.SandboxMode, ApprovalPolicy: s.ApprovalPolicy,
		Effort: s.Effort, Summary: s.Summary, Timeouts: s.Timeouts, Images: images, Mode: mode, WantResult: true}
	ctx, cancel := c.requestContext()
	defer cancel()
	// Until this turn's follower is registered, the watcher must not
	// take the turn for another client's.
	defer c.startingTurn(p.ThreadID)()
	resp, err := c.s.backend.StartTurn(ctx, p.ThreadID, req)
	for attempt := 0; err != nil && isRunning(err); attempt++ {
		// A turn runs: its input goes into that turn, and the overrides
		// wait for the next turn. A turn that is finishing refuses it;
		// then this is a new turn after all.
		if len(images) > 0 {
			return nil, invalidRequest("Invalid request: a turn is running on thread %s; images cannot be steered into it, send them once it ends", p.ThreadID)
		}
		res, serr := c.steerRunning(p.ThreadID, prompt)
		if serr == nil || attempt >= 3 || !errors.Is(serr, threads.ErrNoActiveTurn) {
			if serr == nil {
				ts = c.subscribe(p.ThreadID)
				c.mu.Lock()
				ts.pending = s
				c.mu.Unlock()
			}
			return res, serr
		}
		resp, err = c.s.backend.StartTurn(ctx, p.ThreadID, req)
	}
	if err != nil {
		return nil, startTurnError(p.ThreadID, err)
	}
	ts = c.subscribe(p.ThreadID)
	c.mu.Lock()
	ts.pending = settings{} // the thread has them now
	c.mu.Unlock()
	f := c.newFollower(ts, resp.TurnID, userInputs(items), 0)
	f.known, f.knownTotal = resp.Result, &resp
	turn := protocol.Turn{ID: resp.TurnID, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: turnInProgress}
	return &result{value: protocol.TurnResponse{Turn: turn}, then: func() {
		f.start()
	}}, nil
}

func startTurnError(threadID string, err error) error {
	if errors.Is(err, threads.ErrThreadNotFound) {
		return threadNotFound(threadID)
	}
	if errors.Is(err, threads.ErrThreadArchived) {
		return invalidRequest("thread %s is archived; thread/unarchive brings it back", threadID)
	}
	if errors.Is(err, threads.ErrTurnRefused) {
		return invalidRequest("%s", strings.TrimPrefix(err.Error(), threads.ErrTurnRefused.Error()+": "))
	}
	if errors.Is(err, threads.ErrTurnWaiting) || errors.Is(err, threads.ErrCompacting) {
		return invalidRequest("%s", innermost(err))
	}
	return internalError("starting the turn: %v", err)
}

func isRunning(err error) bool { return errors.Is(err, threads.ErrTurnRunning) }

// innermost is the text of err's innermost wrapped error: a refusal's
// own message, without the context callers added.
func innermost(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

type turnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

// turnInterrupt stops a running turn. Its response comes once the turn
// has really stopped, just before the turn's turn/completed (status
// interrupted).
func (c *conn) turnInterrupt(id json.RawMessage, raw json.RawMessage) (*result, error) {
	var p turnInterruptParams
	if err := decodeParams(raw, &p, "threadId", "turnId"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	running := info.View.RunningTurn
	f := c.followerOf(p.ThreadID, p.TurnID)
	switch {
	case running != "" && running != p.TurnID:
		return nil, invalidRequest("expected active turn id `%s` but found `%s`", p.TurnID, running)
	case running == "" && f == nil:
		return nil, invalidRequest("no active turn to interrupt")
	}
	c.background(func() {
		reply := func() { c.respond(id, protocol.Empty{}) }
		// The answer goes out just before turn/completed: registered before
		// the signal, so a turn that stops at once cannot finish first.
		result := make(chan error, 1)
		waiting := f != nil && f.onFinish(func() {
			if <-result == nil {
				reply()
			}
		})
		err := c.interruptWhenRunning(p.ThreadID, p.TurnID, running == p.TurnID)
		if waiting {
			result <- err
		}
		if err != nil {
			c.fail(id, err)
			return
		}
		if waiting {
			return
		}
		if _, err := c.s.backend.Outcome(c.ctx, p.TurnID); err != nil {
			if c.ctx.Err() == nil {
				c.fail(id, internalError("waiting for turn %s to stop: %v", p.TurnID, err))
			}
			return
		}
		reply()
	})
	return nil, nil
}

// interruptWhenRunning signals the thread once the turn is the one it
// runs: a turn that was accepted but has not started yet cannot be
// stopped by the signal, so it is sent when the turn starts.
func (c *conn) interruptWhenRunning(threadID, turnID string, running bool) error {
	ctx, cancel := c.requestContext()
	defer cancel()
	for {
		if running {
			if err := c.s.backend.Interrupt(ctx, threadID); err != nil {
				return internalError("interrupting thread %s: %v", threadID, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return internalError("turn %s did not start in time to be interrupted", turnID)
		case <-time.After(50 * time.Millisecond):
		}
		info, err := c.s.backend.Thread(ctx, threadID)
		if err != nil {
			return internalError("reading thread %s: %v", threadID, err)
		}
		running = info.View.RunningTurn == turnID
		if !running && finished(info.View, turnID) {
			return nil
		}
	}
}

func finished(v *workflows.ThreadView, turnID string) bool {
	for _, t := range v.Turns {
		if t.TurnID == turnID {
			return true
		}
	}
	return false
}

func (c *conn) followerOf(threadID, turnID string) *follower {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts := c.threads[threadID]; ts != nil && ts.follower != nil && ts.follower.turnID == turnID {
		return ts.follower
	}
	return nil
}

// begin sends the turn's first notifications: the thread is active, the
// turn started, and its user message.
func (f *follower) begin() {
	if f.begun {
		return
	}
	f.begun = true
	c := f.c
	f.startedAt = c.turnStartedAt(f.turnID)
	started := f.startedAt.Unix()
	c.notify(notice(protocol.ThreadStatusChanged{ThreadID: f.threadID, Status: statusActive()}))
	c.notify(notice(protocol.TurnStarted{ThreadID: f.threadID,
		Turn: protocol.Turn{ID: f.turnID, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: turnInProgress, StartedAt: &started}}))
	if f.content == nil {
		// A process that picked the turn up before it began: its prompt
		// is in the turn's log.
		ctx, cancel := c.requestContext()
		if log, err := c.s.backend.TurnLog(ctx, f.turnID); err == nil {
			f.content = []protocol.UserInput{protocol.Text(log.Prompt)}
		}
		cancel()
	}
	for _, n := range f.tr.userMessage(userMessage(turnNumber(f.turnID), f.content)) {
		c.notify(n)
	}
}

// finish sends the turn's last notifications, in the reference's order:
// token usage, the thread's status, the error if it failed, turn/completed.
func (f *follower) finish(res workflows.TurnResult) {
	c := f.c
	f.begin()
	f.mu.Lock()
	f.finished = true
	waiters := f.waiters
	f.mu.Unlock()
	for _, w := range waiters {
		w()
	}

	status := turnStatus(res.Status)
	var terr *TurnError
	switch {
	case status == turnFailed:
		terr = turnError(orDefault(res.Error, "the turn failed"))
	case status == turnInterrupted && res.Error != "":
		// Stopped by a limit (turn timeout), not by a client: a failure.
		status, terr = turnFailed, turnError(res.Error)
	}

	u := res.Usage
	total := u
	if k := f.knownTotal; k != nil && k.ThreadUsage != nil && k.TurnID == f.turnID {
		total = *k.ThreadUsage // a quick turn's thread told them
	} else {
		ctx, cancel := c.requestContext()
		if v, err := viewNow(ctx, c.s.backend, f.threadID); err == nil && v != nil {
			total = v.Usage
			if !finished(v, f.turnID) {
				total.Add(u)
			}
		}
		cancel()
	}
	c.notify(notice(protocol.ThreadTokenUsageUpdated{
		ThreadID: f.threadID, TurnID: f.turnID,
		TokenUsage: tokenUsage{
			Total: breakdown(total.InputTokens, total.CachedInputTokens, total.OutputTokens, total.ReasoningTokens),
			Last:  breakdown(u.InputTokens, u.CachedInputTokens, u.OutputTokens, u.ReasoningTokens),
		},
	}))
	threadStatus := statusIdle
	if status == turnFailed {
		threadStatus = statusSystemError
	}
	c.notify(notice(protocol.ThreadStatusChanged{ThreadID: f.threadID, Status: threadStatus}))
	if terr != nil {
		c.notify(notice(protocol.ErrorNotification{ThreadID: f.threadID, TurnID: f.turnID, Error: terr, WillRetry: false}))
	}
	now := c.s.opts.Now()
	completed := now.Unix()
	turn := protocol.Turn{ID: f.turnID, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: status, Error: terr, CompletedAt: &completed}
	if a := f.tr.answer; a != nil {
		turn.Items, turn.ItemsView = []protocol.ThreadItem{*a}, protocol.ItemsSummary
	}
	if !f.startedAt.IsZero() {
		started, d := f.startedAt.Unix(), now.Sub(f.startedAt).Milliseconds()
		turn.StartedAt, turn.DurationMs = &started, &d
	}
	c.mu.Lock()
	if f.ts.follower == f {
		f.ts.follower = nil
	}
	c.mu.Unlock()
	c.notify(notice(protocol.TurnCompleted{ThreadID: f.threadID, Turn: turn}))
}
