package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// threadParams are the settings thread/start and thread/resume share.
type threadParams struct {
	Model                 *string         `json:"model"`
	ModelProvider         *string         `json:"modelProvider"`
	Cwd                   *string         `json:"cwd"`
	ApprovalPolicy        json.RawMessage `json:"approvalPolicy"`
	Sandbox               *string         `json:"sandbox"`
	BaseInstructions      *string         `json:"baseInstructions"`
	DeveloperInstructions *string         `json:"developerInstructions"`
	Config                map[string]any  `json:"config"`
	DynamicTools          json.RawMessage `json:"dynamicTools"`
	// RequestUserInput (ours, experimental) offers the model the
	// request_user_input tool, answered with item/tool/requestUserInput.
	RequestUserInput bool `json:"requestUserInput"`
	// Ephemeral (thread/start): archive the thread once this connection
	// lets it go (ephemeral.go).
	Ephemeral bool `json:"ephemeral"`
	timeoutParams
}

// settings checks and reads the parameters both methods share.
func (c *conn) readThreadParams(method string, p *threadParams) (settings, error) {
	var s settings
	for _, f := range []struct {
		name string
		text *string
	}{{"baseInstructions", p.BaseInstructions}, {"developerInstructions", p.DeveloperInstructions}} {
		if f.text == nil {
			continue
		}
		if err := workflows.CheckInput(method+"."+f.name, *f.text); err != nil {
			return s, inputTooLarge(err)
		}
	}
	if isSet(p.DynamicTools) {
		if !c.experimentalAPI() {
			return s, invalidRequest("%s.dynamicTools requires experimentalApi capability", method)
		}
		if method != "thread/start" {
			return s, invalidRequest("%s.dynamicTools: dynamic tools are declared by thread/start and stay with the thread", method)
		}
		tools, err := decodeDynamicTools(p.DynamicTools)
		if err != nil {
			return s, err
		}
		s.DynamicTools = tools
	}
	if p.RequestUserInput {
		if !c.experimentalAPI() {
			return s, invalidRequest("%s.requestUserInput requires experimentalApi capability", method)
		}
		if method != "thread/start" {
			return s, invalidRequest("%s.requestUserInput: the tool is offered by thread/start and stays with the thread", method)
		}
		for _, t := range s.DynamicTools {
			if t.Name == userInputTool {
				return s, invalidRequest("Invalid request: dynamicTools declares %q, which requestUserInput offers already", userInputTool)
			}
		}
		s.DynamicTools = append(s.DynamicTools, userInputToolSpec())
	}
	if p.Model != nil {
		s.Model = *p.Model
	}
	if p.Cwd != nil && *p.Cwd != "" {
		s.Cwd = c.absPath(*p.Cwd)
	}
	if isSet(p.ApprovalPolicy) {
		ap, err := approvalPolicyOf(p.ApprovalPolicy, "approvalPolicy")
		if err != nil {
			return s, err
		}
		s.ApprovalPolicy = ap
	}
	if p.Sandbox != nil {
		if err := checkSandboxMode(*p.Sandbox, "sandbox"); err != nil {
			return s, err
		}
		s.SandboxMode = *p.Sandbox
	}
	return s, nil
}

func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && strings.TrimSpace(string(raw)) != "null"
}

func (c *conn) experimentalAPI() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.experimental
}

func (c *conn) absPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(c.s.opts.Cwd, p)
}

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
		turns = append(turns, protocol.Turn{ID: v.RunningTurn, ItemsView: protocol.ItemsFull, Status: turnInProgress,
			Items: turnItems(c.userItem(turnNumber(v.RunningTurn), log.Prompt), log.Events)})
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
		f := c.newFollower(ts, running, userContent([]userInput{{Type: "text", Text: log.Prompt}}), log.Last)
		f.tr.resume(log.Events)
		res.then = f.start
	}
	return res, nil
}

func (s *settings) merge(o settings) {
	if o.Model != "" {
		s.Model = o.Model
	}
	if o.Cwd != "" {
		s.Cwd = o.Cwd
	}
	if o.SandboxMode != "" {
		s.SandboxMode = o.SandboxMode
	}
	if o.ApprovalPolicy != "" {
		s.ApprovalPolicy = o.ApprovalPolicy
	}
	if o.Effort != "" {
		s.Effort = o.Effort
	}
	if o.Summary != "" {
		s.Summary = o.Summary
	}
	if o.Timeouts != nil {
		if s.Timeouts == nil {
			s.Timeouts = &workflows.Timeouts{}
		}
		t := *s.Timeouts
		if o.Timeouts.Turn != nil {
			t.Turn = o.Timeouts.Turn
		}
		if o.Timeouts.Stall != nil {
			t.Stall = o.Timeouts.Stall
		}
		if o.Timeouts.Approval != nil {
			t.Approval = o.Timeouts.Approval
		}
		s.Timeouts = &t
	}
}

// apply shows a config with these overrides.
func (s settings) apply(cfg workflows.ThreadConfig) workflows.ThreadConfig {
	if s.Model != "" {
		cfg.Model = s.Model
	}
	if s.Cwd != "" {
		cfg.Cwd = s.Cwd
	}
	if s.SandboxMode != "" {
		cfg.SandboxMode = s.SandboxMode
	}
	if s.ApprovalPolicy != "" {
		cfg.ApprovalPolicy = s.ApprovalPolicy
	}
	return cfg
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
